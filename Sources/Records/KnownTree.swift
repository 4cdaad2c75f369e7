public import BundleModel
import CompactStorage
public import SystemCalls

/// What the catalogue knew about a tree before a scan: lets the scanner skip directories whose
/// ctime has not changed and bundles whose files have not changed.
///
/// Directories are kept as a tree of small slots (about 40 bytes each) keyed by (parent, name),
/// names packed in a `NameArena`: keyed by whole path strings, 255,000 directories cost 90 MB of
/// a restart's memory. A slot's number is the directory's ordinal, what a scan records as visited.
public struct KnownTree: Sendable {
    public struct Directory: Sendable {
        public var changeTime: Int64
        public var inode: UInt64
        public var trusted: Bool

        public init(changeTime: Int64, inode: UInt64, trusted: Bool) {
            self.changeTime = changeTime
            self.inode = inode
            self.trusted = trusted
        }
    }

    private struct Slot: Sendable {
        var parent: UInt32 = 0
        var firstChild: UInt32 = 0
        var nextSibling: UInt32 = 0
        var name = NameArena.Slice.empty
        var directory = Directory(changeTime: 0, inode: 0, trusted: false)
        /// A catalogued directory (not only on the way to one).
        var known = false
    }

    /// Slot i holds id i + 1; id 1 is `/`.
    private var slots = [Slot()]
    private var names = NameArena()
    private var index = NodeIndex()
    private(set) public var directoryCount = 0
    /// The stamps of the AppleDouble files beside the few directories that have one.
    public private(set) var sidecars: [FilePath: FileStamp] = [:]
    /// Stamps of each catalogued bundle's files, by bundle path.
    public private(set) var bundles: [FilePath: [FileStamp]] = [:]
    /// The catalogued archives, by the directory that holds them.
    public private(set) var archives: [FilePath: [FileName: ArchiveRow]] = [:]
    /// Each catalogued bundle's structural directories, by bundle path.
    public private(set) var structures: [FilePath: BundleStructure] = [:]

    public init() { slots[0].name = names.store("/") }

    public var isEmpty: Bool { directoryCount == 0 && bundles.isEmpty }

    /// A catalogued directory and its ordinal.
    public func directory(at path: FilePath) -> (ordinal: UInt32, directory: Directory)? {
        guard let id = find(path), slots[Int(id - 1)].known else { return nil }
        return (id, slots[Int(id - 1)].directory)
    }

    /// The names of a directory's catalogued subdirectories.
    public func children(of path: FilePath) -> [FileName] {
        guard let id = find(path) else { return [] }
        var result: [FileName] = []
        var child = slots[Int(id - 1)].firstChild
        while child != 0 {
            if slots[Int(child - 1)].known { result.append(names.name(slots[Int(child - 1)].name)) }
            child = slots[Int(child - 1)].nextSibling
        }
        return result
    }

    /// The catalogued directories whose ordinals are not in `visited`: those a scan found gone.
    public func directories(notIn visited: OrdinalSet) -> [FilePath] {
        slots.indices.compactMap { index in
            let id = UInt32(index + 1)
            return slots[index].known && !visited.contains(id) ? path(of: id) : nil
        }
    }

    /// Adds a catalogued directory (its ancestors are made as needed).
    public mutating func addDirectory(_ path: FilePath, _ directory: Directory, sidecar: FileStamp?) {
        var id: UInt32 = 1
        var string = path.string
        string.withUTF8 { bytes in
            Self.forEachComponent(bytes) { component in
                if let child = child(of: id, named: component) {
                    id = child
                } else {
                    id = create(component, under: id)
                }
                return true
            }
        }
        if !slots[Int(id - 1)].known { directoryCount += 1 }
        slots[Int(id - 1)].directory = directory
        slots[Int(id - 1)].known = true
        if let sidecar { sidecars[path] = sidecar }
    }

    public mutating func addArchive(_ row: ArchiveRow) {
        archives[row.path.parent, default: [:]][row.path.lastComponent] = row
    }

    public mutating func addBundle(_ path: FilePath, stamps: [FileStamp], structure: BundleStructure) {
        bundles[path] = stamps
        if !structure.isEmpty { structures[path] = structure }
    }

    // MARK: Slots

    private func find(_ path: FilePath) -> UInt32? {
        var id: UInt32? = 1
        var string = path.string
        string.withUTF8 { bytes in
            Self.forEachComponent(bytes) { component in
                id = child(of: id!, named: component)
                return id != nil
            }
        }
        return id
    }

    /// Calls `body` with each non-empty component of an absolute path's bytes, until it says stop.
    private static func forEachComponent(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeRawBufferPointer) -> Bool) {
        var start = 0
        while start < bytes.count {
            if bytes[start] == UInt8(ascii: "/") {
                start += 1
                continue
            }
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
            guard body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end]))) else { return }
            start = end
        }
    }

    private func child(of parent: UInt32, named component: UnsafeRawBufferPointer) -> UInt32? {
        index.find(hash: NameArena.childHash(parent: parent, name: component)) { id in
            slots[Int(id - 1)].parent == parent && names.equals(slots[Int(id - 1)].name, component)
        }
    }

    private mutating func create(_ component: UnsafeRawBufferPointer, under parent: UInt32) -> UInt32 {
        let name = names.store(FileName(String(decoding: component, as: UTF8.self)))
        slots.append(Slot(parent: parent, nextSibling: slots[Int(parent - 1)].firstChild, name: name))
        let id = UInt32(slots.count)
        slots[Int(parent - 1)].firstChild = id
        let slots = self.slots, names = self.names
        index.insert(id, hash: NameArena.childHash(parent: parent, name: component)) { other in
            names.childHash(parent: slots[Int(other - 1)].parent, slots[Int(other - 1)].name)
        }
        return id
    }

    private func path(of id: UInt32) -> FilePath {
        var components: [NameArena.Slice] = []
        var current = id
        while current != 0 {
            components.append(slots[Int(current - 1)].name)
            current = slots[Int(current - 1)].parent
        }
        return names.path(innermostFirst: components)
    }
}
