import CompactStorage
import Synchronization
import SystemCalls

/// What a node of the view stands for.
enum NodeKind: UInt8, Sendable {
    /// A real file, directory or symlink of the source, presented the Finder's way (directories
    /// list display names, packages as files).
    case source
    /// A real item listed as it is (real names, nothing hidden): the raw contents and resolved
    /// resources in `.bundlefs` views.
    case raw
    /// A package presented as one read-only file: a tar of its directory.
    case package
    /// `.bundlefs`, `.bundlefs/by-id`, `.bundlefs/by-path` and by-path's intermediate directories.
    case control
    case byID
    case byPath
    /// `.bundlefs/by-id/<id>` or `.bundlefs/by-path/<path>`: one bundle's resolved view.
    case bundleView
    /// A bundle view's effective `Info.plist`.
    case info
    /// A bundle view's `Icon.png`: its icon file converted (rule 22).
    case icon
    /// A bundle view's `Resources` (or a directory within it): resolved resources.
    case resources
    /// `.bundlefs/by-uuid`: a directory per catalogued Mach-O UUID or ELF build-id.
    case byUUID
    /// `.bundlefs/by-uuid/<UUID>`: its `dSYM`, `executable` and `Info.plist`.
    case uuidView
    /// `.bundlefs/by-uuid/<UUID>/Info.plist`: the DebugSymbols entry `bundlefs symbols` prints.
    case uuidInfo
    /// `.bundlefs/symbols` and the directories of its layouts (`SymbolStores`).
    case symbols
    /// A file of a symbol store: an image's DWARF file or executable, read from the real file, with
    /// the access its bundle and directories allow.
    case symbolFile

    /// Real items are identified by device and inode; the rest by a description of what they show.
    var isReal: Bool { self == .source || self == .raw || self == .package }
}

/// Which bundle a bundle view shows: by identifier (the highest version, see `PackageIndex`) or
/// by its path.
enum BundleViewKey: Hashable, Sendable {
    case identifier(String)
    case path(FilePath)
}

/// What a synthesized node shows, beyond its kind.
enum SyntheticDetail: Hashable, Sendable {
    /// `.bundlefs`, `by-id`, the top of `by-path`.
    case none
    /// A directory of `by-path` above some bundles: their common path relative to SOURCE.
    case pathPrefix(FilePath)
    /// A bundle view, or its `Info.plist`.
    case bundle(BundleViewKey)
    /// A directory of a bundle view's `Resources`: the path below `Resources`.
    case resources(BundleViewKey, subpath: FilePath)
    /// A `by-uuid` directory or its `Info.plist`: the UUID's lookup key.
    case uuid(String)
    /// A directory of `.bundlefs/symbols`.
    case symbolPath(SymbolPath)
    /// A file of a symbol store.
    case symbolFile(SymbolStoreFile)

    var bundleView: BundleViewKey? {
        switch self {
        case let .bundle(key), let .resources(key, _): key
        case .none, .pathPrefix, .uuid, .symbolPath, .symbolFile: nil
        }
    }
}

/// Which node a lookup reached: a second lookup of the same thing finds the same node.
enum NodeIdentity: Hashable, Sendable {
    case item(NodeKind, device: UInt64, inode: UInt64)
    case synthesized(NodeKind, detail: SyntheticDetail)
}

/// What a package node's bytes are: the kernel keeps a file's pages across opens (it opens files
/// itself, `no_open`), so a node's content never changes; a package that changed is looked up as a
/// new node, and the old one, still open somewhere, serves its old layout or fails with EIO.
struct ContentVersion: Equatable, Sendable {
    var fingerprint: UInt64
    var size: Int64
    var modificationTime: Int64
    var readableMode: UInt32

    init(_ layout: PackageLayout) {
        fingerprint = layout.tar.fingerprint
        size = layout.tar.size
        modificationTime = layout.tar.modificationTime
        readableMode = layout.readableMode
    }
}

/// Every node the kernel knows, with its lookup count. Node ids index an array; an id is reused
/// only after the kernel forgot it (its count reached zero through FORGET), with a new generation,
/// as FUSE allows. Nodes hold no file descriptor: a real item is reached by its parent and name (or
/// an absolute path when the parent is 0), so a million nodes cost memory, not descriptors: about
/// 50 bytes each (a 32-byte slot, the name, the index).
final class NodeTable: Sendable {
    struct Node: Sendable {
        var kind: NodeKind
        var parent: UInt64
        /// Its name in its parent; with no parent (0), the absolute path of what it stands for.
        var name: FileName
        var device: UInt64
        var inode: UInt64
        var generation: UInt64
        var lookups: UInt64
        /// What a synthesized node shows.
        var detail: SyntheticDetail
        /// A package node's content.
        var version: ContentVersion?
    }

    /// 32 bytes: at a million nodes every byte is a megabyte.
    private struct Slot {
        var inode: UInt64 = 0
        var parent: UInt32 = 0
        var lookups: UInt32 = 0
        var generation: UInt32 = 0
        var name = NameArena.Slice.empty
        /// Index into `State.devices`: a view spans few file systems.
        var device: UInt16 = 0
        var kind: NodeKind = .source
        var live = false
    }

    private struct State {
        var slots: [Slot] = []
        var devices: [UInt64] = []
        var names = NameArena()
        var free: [UInt32] = []
        var index = NodeIndex()
        var details: [UInt32: SyntheticDetail] = [:]
        var versions: [UInt32: ContentVersion] = [:]
        var synthesized: [NodeIdentity: UInt32] = [:]
        /// Names under which the kernel may hold a node other than its real name (display
        /// names), by parent: invalidating a directory must invalidate these too.
        var aliases: [UInt32: [(name: FileName, child: UInt32)]] = [:]
        var aliasParents: [UInt32: [UInt32]] = [:]
        var nextGeneration: UInt32 = 1
    }

    private let state = Mutex(State())
    static let rootID: UInt64 = 1

    init(rootPath: FilePath, device: UInt64, inode: UInt64) {
        state.withLock { state in
            var root = Slot(inode: inode, lookups: 1, kind: .source, live: true)
            root.device = Self.deviceIndex(device, in: &state)
            root.name = state.names.store(FileName(rootPath.string))
            state.slots.append(root)
            state.index.insert(1, hash: Self.hash(.source, device, inode), hashOf: { _ in 0 })
        }
    }

    /// The index of a device number in the table of devices seen. Past 65,535 file systems under
    /// one source, further ones share the last index and their nodes are not found again (each
    /// lookup makes a new node): a limit no real tree reaches.
    private static func deviceIndex(_ device: UInt64, in state: inout State) -> UInt16 {
        if let index = state.devices.firstIndex(of: device) { return UInt16(index) }
        guard state.devices.count <= Int(UInt16.max) else { return UInt16.max }
        state.devices.append(device)
        return UInt16(state.devices.count - 1)
    }

    private static func hash(_ kind: NodeKind, _ device: UInt64, _ inode: UInt64) -> Int {
        var value = inode &* 0x9E37_79B9_7F4A_7C15
        value ^= (device &+ UInt64(kind.rawValue) &* 0x1000_0000_01B3) &* 0xC2B2_AE3D_27D4_EB4F
        value ^= value >> 29
        return Int(truncatingIfNeeded: value)
    }

    /// The node for `identity`, created if new, its lookup count raised by one for a reply that
    /// hands it to the kernel. `parent` and `name` record the latest way it was reached (how its
    /// real path is found); `alias` is the name the kernel will know it by when that differs.
    /// A node found with another `version` is retired (no lookup finds it again; it lives until
    /// the kernel forgets it) and a new one made.
    func lookUp(_ identity: NodeIdentity, parent: UInt64, name: FileName, alias: FileName? = nil,
                version: ContentVersion? = nil) -> (id: UInt64, generation: UInt64) {
        state.withLock { state in
            var found = Self.find(identity, in: state)
            if let existing = found, state.versions[existing] != version, case let .item(kind, device, inode) = identity {
                state.index.remove(existing, hash: Self.hash(kind, device, inode))
                found = nil
            }
            let id: UInt32
            if let existing = found {
                id = existing
                let index = Int(id - 1)
                if UInt64(id) != Self.rootID {
                    state.slots[index].lookups += 1
                    if state.slots[index].parent != UInt32(parent) || !state.names.equals(state.slots[index].name, name) {
                        state.names.free(state.slots[index].name)
                        state.slots[index].name = state.names.store(name)
                        state.slots[index].parent = UInt32(parent)
                    }
                }
            } else {
                id = Self.create(identity, parent: parent, name: name, in: &state)
                state.versions[id] = version
            }
            if let alias, alias != name, UInt64(id) != Self.rootID {
                let parent32 = UInt32(parent)
                if !(state.aliases[parent32]?.contains { $0.child == id && $0.name == alias } ?? false) {
                    state.aliases[parent32, default: []].append((alias, id))
                    state.aliasParents[id, default: []].append(parent32)
                }
            }
            return (UInt64(id), UInt64(state.slots[Int(id - 1)].generation))
        }
    }

    private static func find(_ identity: NodeIdentity, in state: State) -> UInt32? {
        switch identity {
        case let .item(kind, device, inode):
            return state.index.find(hash: hash(kind, device, inode)) { id in
                let slot = state.slots[Int(id - 1)]
                return slot.inode == inode && state.devices[Int(slot.device)] == device && slot.kind == kind
            }
        case .synthesized:
            return state.synthesized[identity]
        }
    }

    private static func create(_ identity: NodeIdentity, parent: UInt64, name: FileName, in state: inout State) -> UInt32 {
        var slot = Slot(parent: UInt32(parent), lookups: 1, generation: state.nextGeneration, live: true)
        state.nextGeneration &+= 1
        slot.name = state.names.store(name)
        switch identity {
        case let .item(kind, device, inode):
            slot.kind = kind
            slot.device = deviceIndex(device, in: &state)
            slot.inode = inode
        case let .synthesized(kind, _):
            slot.kind = kind
        }
        let id: UInt32
        if let reused = state.free.popLast() {
            id = reused
            state.slots[Int(id - 1)] = slot
        } else {
            state.slots.append(slot)
            id = UInt32(state.slots.count)
        }
        switch identity {
        case let .item(kind, device, inode):
            let slots = state.slots, devices = state.devices
            state.index.insert(id, hash: hash(kind, device, inode)) { other in
                let slot = slots[Int(other - 1)]
                return hash(slot.kind, devices[Int(slot.device)], slot.inode)
            }
        case let .synthesized(_, detail):
            state.details[id] = detail
            state.synthesized[identity] = id
        }
        return id
    }

    func node(_ id: UInt64) -> Node? {
        state.withLock { state in
            guard id > 0, id <= UInt64(state.slots.count) else { return nil }
            let slot = state.slots[Int(id - 1)]
            guard slot.live else { return nil }
            return Node(kind: slot.kind, parent: UInt64(slot.parent), name: state.names.name(slot.name), device: state.devices[Int(slot.device)],
                        inode: slot.inode, generation: UInt64(slot.generation), lookups: UInt64(slot.lookups),
                        detail: state.details[UInt32(id)] ?? .none, version: state.versions[UInt32(id)])
        }
    }

    /// The node for a real item, if the kernel knows it (no lookup counted).
    func id(of kind: NodeKind, device: UInt64, inode: UInt64) -> UInt64? {
        id(of: .item(kind, device: device, inode: inode))
    }

    /// The node the kernel knows for `identity`, if any (no lookup counted).
    func id(of identity: NodeIdentity) -> UInt64? {
        state.withLock { state in Self.find(identity, in: state).map(UInt64.init) }
    }

    /// FORGET: the kernel dropped `count` references. Returns whether the node is gone.
    @discardableResult
    func forget(_ id: UInt64, count: UInt64) -> Bool {
        guard id != Self.rootID else { return false }
        return state.withLock { state in
            guard id > 0, id <= UInt64(state.slots.count), state.slots[Int(id - 1)].live else { return false }
            let index = Int(id - 1)
            let id32 = UInt32(id)
            let remaining = UInt64(state.slots[index].lookups) - min(count, UInt64(state.slots[index].lookups))
            state.slots[index].lookups = UInt32(remaining)
            guard remaining == 0 else { return false }
            let slot = state.slots[index]
            state.versions[id32] = nil
            if slot.kind.isReal {
                state.index.remove(id32, hash: Self.hash(slot.kind, state.devices[Int(slot.device)], slot.inode))
            } else if let detail = state.details.removeValue(forKey: id32) {
                state.synthesized[.synthesized(slot.kind, detail: detail)] = nil
            }
            for parent in state.aliasParents.removeValue(forKey: id32) ?? [] {
                state.aliases[parent]?.removeAll { $0.child == id32 }
                if state.aliases[parent]?.isEmpty == true { state.aliases[parent] = nil }
            }
            state.names.free(slot.name)
            state.slots[index] = Slot()
            state.free.append(id32)
            if state.names.needsCompaction { state.names.compact(&state.slots, name: \.name, isLive: \.live) }
            return true
        }
    }

    /// The real path of a node that stands for a real item (or a bundle view).
    func path(of id: UInt64) -> FilePath? {
        state.withLock { state in
            var components: [NameArena.Slice] = []
            var current = id
            for _ in 0..<4096 {
                guard current > 0, current <= UInt64(state.slots.count) else { return nil }
                let slot = state.slots[Int(current - 1)]
                guard slot.live else { return nil }
                components.append(slot.name)
                if slot.parent == 0 { break }
                current = UInt64(slot.parent)
            }
            return state.names.path(innermostFirst: components)
        }
    }

    /// The names other than their real names under which the kernel may know children of `parent`.
    func aliases(under parent: UInt64) -> [FileName] {
        state.withLock { $0.aliases[UInt32(parent)]?.map(\.name) ?? [] }
    }

    /// Every (parent, name) under which the kernel may hold a node: its real name and its aliases.
    func entries(of id: UInt64) -> [(parent: UInt64, name: FileName)] {
        state.withLock { state in
            guard id > 0, id <= UInt64(state.slots.count), state.slots[Int(id - 1)].live else { return [] }
            let slot = state.slots[Int(id - 1)]
            var result: [(parent: UInt64, name: FileName)] = slot.parent == 0 ? [] : [(UInt64(slot.parent), state.names.name(slot.name))]
            for parent in state.aliasParents[UInt32(id)] ?? [] {
                for alias in state.aliases[parent] ?? [] where alias.child == UInt32(id) { result.append((UInt64(parent), alias.name)) }
            }
            return result
        }
    }

    /// The real names of the known children of each of `parents`, by parent.
    func childNames(of parents: Set<UInt64>) -> [UInt64: [FileName]] {
        state.withLock { state in
            var result: [UInt64: [FileName]] = [:]
            for slot in state.slots where slot.live && parents.contains(UInt64(slot.parent)) {
                result[UInt64(slot.parent), default: []].append(state.names.name(slot.name))
            }
            return result
        }
    }

    /// The ids of the synthesized nodes (every kind but real items'): few, found without a pass
    /// over the real ones.
    func synthesizedIDs() -> [UInt64] { state.withLock { $0.synthesized.values.map(UInt64.init) } }

    /// The ids of the synthesized nodes whose kind and detail pass `matches`.
    func synthesizedIDs(where matches: (NodeKind, SyntheticDetail) -> Bool) -> [UInt64] {
        state.withLock { state in
            state.synthesized.compactMap { identity, id in
                guard case let .synthesized(kind, detail) = identity, matches(kind, detail) else { return nil }
                return UInt64(id)
            }
        }
    }

    /// The ids of live nodes of a kind.
    func ids(of kind: NodeKind) -> [UInt64] {
        state.withLock { state in state.slots.indices.filter { state.slots[$0].live && state.slots[$0].kind == kind }.map { UInt64($0 + 1) } }
    }

    var count: Int { state.withLock { $0.slots.count - $0.free.count } }
}
