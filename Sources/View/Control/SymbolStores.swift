import BundleModel
import Catalogue
import CompactStorage
import Synchronization
import SystemCalls

/// A directory of `.bundlefs/symbols`: its layout (nil for `symbols` itself) and its path below the
/// layout's root as it was asked for. Lookups ignore case, and each spelling is a node of its own:
/// the kernel lets a directory have one name only.
struct SymbolPath: Hashable, Sendable {
    var layout: SymbolLayout?
    var components: [String]

    static let top = SymbolPath(layout: nil, components: [])
}

/// A file of a symbol store: which image's which file, and the real file it was looked up as, as
/// indexed (a file replaced or rewritten since is not read in its place).
struct SymbolStoreFile: Hashable, Sendable {
    var key: String
    var role: SymbolLayout.Role
    /// The file found at the lookup (`Catalogue.openRecorded`: the one the catalogue recorded).
    var found: BinarySlice.DiskFile

    init(key: String, role: SymbolLayout.Role, path: FilePath, status: FileStatus) {
        self.key = key
        self.role = role
        found = BinarySlice.DiskFile(path: path, status: status)
    }

    var device: UInt64 { found.device }
    var inode: UInt64 { found.inode }

    /// Whether `status` is of the file looked up, unchanged.
    func isUnchanged(_ status: FileStatus) -> Bool { found.isUnchanged(status) }
}

/// `.bundlefs/symbols/native` and `.bundlefs/symbols/unified` (SPEC.md, "Symbol stores for the
/// tools people already run"): symbolicator's layouts, as `SymbolLayout` names paths, of the
/// images by-uuid knows. A file is by-uuid's `dSYM` or `executable` of the image (`UUIDViews`
/// chooses). Answered from the catalogue between two updates without a walk of every UUID per
/// listing: a layout's top level from one pass of the UUID index (`symbolKeyGroups`), kept until
/// the next update; everything below a top-level directory from one range of the index (its
/// digits), kept within a bound for every directory and file beneath it.
final class SymbolStores: Sendable {
    static let directoryName: FileName = "symbols"

    let source: ScanRoot
    let catalogue: any SymbolIndex
    /// Told of each catalogued file not served (`Catalogue.openRecorded`), for the log.
    let refused: @Sendable (SymbolFileRefusal) -> Void
    private let kept = Mutex(Kept())

    /// A directory's entry.
    enum Child {
        case directory(String, SymbolPath)
        case file(String, SymbolStoreFile)
    }

    /// Where a name in a directory leads.
    enum Step {
        case directory(SymbolPath)
        case file(SymbolStoreFile, path: FilePath, status: FileStatus, match: DebugSymbols.Match)
    }

    private struct Kept {
        /// Each layout's top-level names, by their lower-cased spelling.
        var tops: [SymbolLayout: [String: String]]?
        /// The matches of the keys under a top-level directory, by its digits (lower-case),
        /// weighed by keys: 30,000 UUIDs fit.
        var ranges = BoundedCache<String, [String: [DebugSymbols.Match]]>(limit: 65_536, keeping: 49_152)
        /// Counts updates, so that an answer read while one came is not kept past it.
        var generation = 0
    }

    init(source: ScanRoot, catalogue: any SymbolIndex, refused: @escaping @Sendable (SymbolFileRefusal) -> Void = { _ in }) {
        self.source = source
        self.catalogue = catalogue
        self.refused = refused
    }

    /// After an update: what was kept may have changed.
    func invalidate() {
        kept.withLock { $0 = Kept(generation: $0.generation + 1) }
    }

    /// A directory's entries in byte order, and the matches they were made from (for the
    /// attributes of a listing's entries). Files are listed only when they can be served.
    func children(of path: SymbolPath) -> (children: [Child], matches: [String: [DebugSymbols.Match]]?) {
        guard let layout = path.layout else {
            return (SymbolLayout.allCases.map { .directory($0.rawValue, SymbolPath(layout: $0, components: [])) }, nil)
        }
        if path.components.isEmpty {
            let names = top(layout).values.sorted()
            return (names.map { .directory($0, SymbolPath(layout: layout, components: [$0])) }, nil)
        }
        let matches = range(Self.prefix(path.components), top: path.components[0])
        let depth = path.components.count, folded = Self.folded(path.components)
        var children: [String: Child] = [:]
        for (key, keyMatches) in matches {
            guard let format = keyMatches.first?.slice.format else { continue }
            for role in SymbolLayout.Role.allCases {
                let entry = SymbolLayout.Entry(key: key, role: role)
                let full = layout.components(of: entry, format: format)
                guard full.count > depth, Self.folded(full.prefix(depth)) == folded else { continue }
                let name = full[depth]
                if full.count > depth + 1 {
                    children[name] = .directory(name, SymbolPath(layout: layout, components: path.components + [name]))
                } else if let file = UUIDViews.storeFile(role, in: keyMatches, within: source.path, refused: refused) {
                    children[name] = .file(name, SymbolStoreFile(key: key, role: role, path: file.path, status: file.status))
                }
            }
        }
        // Names are ASCII: sorted as strings, they are in byte order.
        return (children.keys.sorted().compactMap { children[$0] }, matches)
    }

    /// Where `name` leads from the directory `path`, ignoring case. `known` are the matches its
    /// listing was made from, when a listing asks.
    func step(_ name: String, in path: SymbolPath, known: [String: [DebugSymbols.Match]]? = nil) -> Step? {
        guard let layout = path.layout else {
            return SymbolLayout(rawValue: name).map { .directory(SymbolPath(layout: $0, components: [])) }
        }
        let full = path.components + [name]
        if let entry = layout.entry(full) {
            let matches = (known?[entry.key] ?? range(entry.key, top: full[0])[entry.key]) ?? []
            guard let format = matches.first?.slice.format, Self.folded(layout.components(of: entry, format: format)) == Self.folded(full),
                  let file = UUIDViews.storeFile(entry.role, in: matches, within: source.path, refused: refused)
            else { return nil }
            let identity = SymbolStoreFile(key: entry.key, role: entry.role, path: file.path, status: file.status)
            return .file(identity, path: file.path, status: file.status, match: file.match)
        }
        let child = SymbolPath(layout: layout, components: full)
        if full.count == 1 { return top(layout)[name.lowercased()] == nil ? nil : .directory(child) }
        let prefix = Self.prefix(full), folded = Self.folded(full)
        let matches = known.map { $0.filter { $0.key.hasPrefix(prefix) } } ?? range(prefix, top: full[0])
        for (key, keyMatches) in matches {
            guard let format = keyMatches.first?.slice.format else { continue }
            for role in SymbolLayout.Role.allCases {
                let components = layout.components(of: SymbolLayout.Entry(key: key, role: role), format: format)
                if components.count > full.count, Self.folded(components.prefix(full.count)) == folded { return .directory(child) }
            }
        }
        return nil
    }

    /// Whether a directory is still there (its node outlives the catalogue's answer).
    func exists(_ path: SymbolPath) -> Bool {
        guard let name = path.components.last else { return true }
        if case .directory? = step(name, in: SymbolPath(layout: path.layout, components: path.components.dropLast())) { return true }
        return false
    }

    /// The match a file of an image is served from now, for its attributes.
    func match(_ role: SymbolLayout.Role, key: String) -> DebugSymbols.Match? {
        UUIDViews.storeFile(role, in: range(key, top: String(key.prefix(2)))[key] ?? [], within: source.path, refused: refused)?.match
    }

    /// A layout's top-level names, from one query per update.
    private func top(_ layout: SymbolLayout) -> [String: String] {
        let (tops, generation) = kept.withLock { ($0.tops, $0.generation) }
        if let tops { return tops[layout] ?? [:] }
        let groups = (try? catalogue.symbolKeyGroups(under: source.path)) ?? []
        var made: [SymbolLayout: [String: String]] = [:]
        for layout in SymbolLayout.allCases {
            for (key, format) in groups {
                guard let name = layout.components(of: SymbolLayout.Entry(key: key, role: .debugInfo), format: format).first else { continue }
                made[layout, default: [:]][name.lowercased()] = name
            }
        }
        kept.withLock { if $0.generation == generation { $0.tops = made } }
        return made[layout] ?? [:]
    }

    /// The matches of the keys starting with `prefix` (lower-case hex), from the range of the
    /// top-level directory `top` that holds them (or of the two digits that hold that one), read
    /// once: a walk of a tree beneath it asks the catalogue no more.
    private func range(_ prefix: String, top: String) -> [String: [DebugSymbols.Match]] {
        let top = top.lowercased()
        let (found, generation) = kept.withLock { kept -> ([String: [DebugSymbols.Match]]?, Int) in
            let held = kept.ranges.value(for: top) ?? (top.utf8.count > 2 ? kept.ranges.value(for: String(top.prefix(2))) : nil)
            return (held, kept.generation)
        }
        let matches: [String: [DebugSymbols.Match]]
        if let found {
            matches = found
        } else {
            matches = (try? catalogue.symbolMatchesByKey(prefix: top, under: source.path)) ?? [:]
            kept.withLock { if $0.generation == generation { _ = $0.ranges.store(matches, for: top, weight: max(1, matches.count)) } }
        }
        return prefix == top ? matches : matches.filter { $0.key.hasPrefix(prefix) }
    }

    /// The key prefix a directory's path spells: its components joined, lower-cased.
    private static func prefix(_ components: [String]) -> String { components.joined().lowercased() }

    private static func folded<S: Sequence<String>>(_ components: S) -> [String] { components.map { $0.lowercased() } }
}
