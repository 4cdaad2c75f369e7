import BundleModel
import Catalogue
import CompactStorage
import Synchronization
import SystemCalls

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
/// listing: a layout's top level from one pass of the UUID index (`symbolKeyGroups`), kept and
/// mended by what each update touched (the names of the groups holding its UUIDs, made again from
/// their ranges); everything below a top-level directory from one range of the index (the first two
/// digits), kept within a bound for every directory and file beneath it until an update touches
/// one of its UUIDs.
final class SymbolStores: Sendable {
    static let directoryName: FileName = "symbols"

    let source: ScanRoot
    let catalogue: any SymbolIndex
    /// Counts the catalogue queries made here (`RequestCounts`).
    let requests: RequestCounts
    /// Told of each catalogued file not served (`Catalogue.openRecorded`), for the log.
    let refused: @Sendable (SymbolFileRefusal) -> Void
    private let kept = Mutex(Kept())

    /// A directory's entry; a file with the match it is served from, so that a listing's
    /// attributes need not find (and open) it again.
    enum Child {
        case directory(String, SymbolPath)
        case file(String, SymbolStoreFile, status: FileStatus, match: DebugSymbols.Match)
    }

    /// Where a name in a directory leads.
    enum Step {
        case directory(SymbolPath)
        case file(SymbolStoreFile, path: FilePath, status: FileStatus, match: DebugSymbols.Match)
    }

    /// One key of a group and its matches.
    private struct KeyMatches {
        var key: String
        var matches: [DebugSymbols.Match]
    }

    private struct Kept {
        /// Each layout's top-level names, by their lower-cased spelling.
        var tops: [SymbolLayout: [String: String]]?
        /// The first two digits of the keys updates touched since `tops` was made: the names
        /// under them are made again, from their range, at the next question.
        var staleTops = Set<String>()
        /// The keys of a group (their first two digits, lower-case) in order, with their matches,
        /// weighed by keys: 30,000 UUIDs fit.
        var groups = BoundedCache<String, [KeyMatches]>(limit: 65_536, keeping: 49_152)
        /// Counts updates, so that an answer read while one came is not kept past it.
        var generation = 0
    }

    init(source: ScanRoot, catalogue: any SymbolIndex, requests: RequestCounts = RequestCounts(),
         refused: @escaping @Sendable (SymbolFileRefusal) -> Void = { _ in }) {
        self.source = source
        self.catalogue = catalogue
        self.requests = requests
        self.refused = refused
    }

    /// After an update that may have changed anything (a reload): nothing kept is kept.
    func invalidate() {
        kept.withLock { $0 = Kept(generation: $0.generation + 1) }
    }

    /// After an update that touched these UUIDs: only the ranges holding them and the top-level
    /// names they spell are read again; every other directory's answer stands.
    func invalidate(keys: Set<String>) {
        kept.withLock { kept in
            kept.generation += 1
            guard !keys.isEmpty else { return }
            let groups = Set(keys.map { String($0.prefix(2)) })
            kept.groups.removeAll { groups.contains($0) }
            if kept.tops != nil { kept.staleTops.formUnion(groups) }
        }
    }

    /// Counts the updates that touched anything kept: an answer made at one count is not given
    /// at another (`ReadAhead`).
    var generation: Int { kept.withLock { $0.generation } }

    /// A directory's entries in byte order. Files are listed only when they can be served.
    func children(of path: SymbolPath) -> [Child] {
        children(of: path, readingCatalogue: true) ?? []
    }

    /// The same; without `readingCatalogue`, nil when answering would need a catalogue query (a
    /// listing made ahead only reads a range a listing above it has read).
    func children(of path: SymbolPath, readingCatalogue: Bool) -> [Child]? {
        guard let layout = path.layout else {
            return SymbolLayout.allCases.map { .directory($0.rawValue, SymbolPath(layout: $0, components: [])) }
        }
        if path.depth == 0 {
            guard readingCatalogue else { return nil }
            return top(layout).values.sorted().map { .directory($0, path.appending($0)) }
        }
        let depth = path.depth, folded = path.folded
        guard let range = range(path.keyPrefix, readingCatalogue: readingCatalogue) else { return nil }
        var children: [String: Child] = [:]
        for (key, keyMatches) in range {
            guard let format = keyMatches.first?.slice.format else { continue }
            for role in SymbolLayout.Role.allCases {
                let full = layout.components(of: SymbolLayout.Entry(key: key, role: role), format: format)
                guard full.count > depth, Self.folded(full.prefix(depth)) == folded else { continue }
                let name = full[depth]
                if full.count > depth + 1 {
                    children[name] = .directory(name, path.appending(name))
                } else if let file = storeFile(role, in: keyMatches) {
                    children[name] = .file(name, SymbolStoreFile(key: key, role: role, path: file.path, status: file.status), status: file.status, match: file.match)
                }
            }
        }
        // Names are ASCII: sorted as strings, they are in byte order.
        return children.keys.sorted().compactMap { children[$0] }
    }

    /// Where `name` leads from the directory `path`, ignoring case.
    func step(_ name: String, in path: SymbolPath) -> Step? {
        guard let layout = path.layout else {
            return SymbolLayout(rawValue: name).map { .directory(SymbolPath(layout: $0, components: [])) }
        }
        let child = path.appending(name)
        if let entry = layout.entry(child.components) {
            let matches = range(entry.key)[entry.key] ?? []
            guard let format = matches.first?.slice.format, Self.folded(layout.components(of: entry, format: format)[...]) == child.folded,
                  let file = storeFile(entry.role, in: matches)
            else { return nil }
            let identity = SymbolStoreFile(key: entry.key, role: entry.role, path: file.path, status: file.status)
            return .file(identity, path: file.path, status: file.status, match: file.match)
        }
        if child.depth == 1 { return top(layout)[name.lowercased()] == nil ? nil : .directory(child) }
        let folded = child.folded
        for (key, keyMatches) in range(child.keyPrefix) {
            guard let format = keyMatches.first?.slice.format else { continue }
            for role in SymbolLayout.Role.allCases {
                let components = layout.components(of: SymbolLayout.Entry(key: key, role: role), format: format)
                if components.count > child.depth, Self.folded(components.prefix(child.depth)) == folded { return .directory(child) }
            }
        }
        return nil
    }

    /// Whether a directory is still there (its node outlives the catalogue's answer).
    func exists(_ path: SymbolPath) -> Bool {
        guard let name = path.lastComponent else { return true }
        if case .directory? = step(name, in: path.parent) { return true }
        return false
    }

    /// The match a file of an image is served from now, for its attributes.
    func match(_ role: SymbolLayout.Role, key: String) -> DebugSymbols.Match? {
        storeFile(role, in: range(key)[key] ?? [])?.match
    }

    /// The file an image's matches serve for `role` (`UUIDViews.storeFile`), counted: each find
    /// opens and checks the file.
    private func storeFile(_ role: SymbolLayout.Role, in matches: [DebugSymbols.Match]) -> (path: FilePath, status: FileStatus, match: DebugSymbols.Match)? {
        requests.count(.symbolFileFind)
        return UUIDViews.storeFile(role, in: matches, within: source.path, refused: refused)
    }

    /// A layout's top-level names, from one query per update.
    private func top(_ layout: SymbolLayout) -> [String: String] {
        let (tops, stale, generation) = kept.withLock { ($0.tops, $0.staleTops, $0.generation) }
        if let tops, stale.isEmpty { return tops[layout] ?? [:] }
        var made: [SymbolLayout: [String: String]]
        if var tops, stale.count <= Self.staleGroupsReadAsRanges {
            // Each touched group of two digits is one range: its names are made again from it.
            for group in stale {
                guard let read = read(group: group, generation: generation) else { return tops[layout] ?? [:] }
                let keys = read.compactMap { each in each.matches.first.map { (key: each.key, format: $0.slice.format) } }
                for each in SymbolLayout.allCases {
                    tops[each] = tops[each]?.filter { !$0.key.hasPrefix(group) }
                    Self.addNames(each, of: keys, to: &tops)
                }
            }
            made = tops
        } else {
            requests.count(.symbolQuery)
            let groups = (try? catalogue.symbolKeyGroups(under: source.path)) ?? []
            made = [:]
            for layout in SymbolLayout.allCases { Self.addNames(layout, of: groups, to: &made) }
        }
        kept.withLock {
            if $0.generation == generation {
                $0.tops = made
                $0.staleTops = []
            }
        }
        return made[layout] ?? [:]
    }

    /// Past this many groups of two digits touched, one pass over the index is cheaper.
    static let staleGroupsReadAsRanges = 16

    /// The top-level names these keys spell in a layout, by their lower-cased spelling.
    private static func addNames(_ layout: SymbolLayout, of keys: [(key: String, format: BinarySlice.Format)],
                                 to tops: inout [SymbolLayout: [String: String]]) {
        for (key, format) in keys {
            guard let name = layout.components(of: SymbolLayout.Entry(key: key, role: .debugInfo), format: format).first else { continue }
            tops[layout, default: [:]][name.lowercased()] = name
        }
    }

    /// The matches of the keys starting with `prefix` (lower-case hex, two digits or more), from
    /// their group's range, read once: a walk of every directory beneath the group's top-level
    /// directories asks the catalogue no more (256 queries for all of `native`'s 23,000 top-level
    /// directories at 30,000 UUIDs, not one each).
    private func range(_ prefix: String) -> [String: [DebugSymbols.Match]] {
        range(prefix, readingCatalogue: true) ?? [:]
    }

    /// The same; nil, without `readingCatalogue`, when the group is not kept.
    private func range(_ prefix: String, readingCatalogue: Bool) -> [String: [DebugSymbols.Match]]? {
        guard let group = group(String(prefix.prefix(2)), readingCatalogue: readingCatalogue) else { return nil }
        // Keys are ASCII: ordered as strings, they are in byte order, and those with a prefix adjoin.
        var low = 0, high = group.count
        while low < high {
            let middle = (low + high) / 2
            if group[middle].key < prefix { low = middle + 1 } else { high = middle }
        }
        var matches: [String: [DebugSymbols.Match]] = [:]
        while low < group.count, group[low].key.hasPrefix(prefix) {
            matches[group[low].key] = group[low].matches
            low += 1
        }
        return matches
    }

    /// A group's keys in order with their matches, from one range of the index; none while the
    /// catalogue cannot be read. Nil, without `readingCatalogue`, when it is not kept.
    private func group(_ name: String, readingCatalogue: Bool) -> [KeyMatches]? {
        let (found, generation) = kept.withLock { ($0.groups.value(for: name), $0.generation) }
        if let found { return found }
        guard readingCatalogue else { return nil }
        return read(group: name, generation: generation) ?? []
    }

    /// The one read of a group's range (for its directories and for the top-level names it
    /// spells), kept unless an update came since `generation`; nil, and nothing kept, when the
    /// catalogue cannot be read: the next question asks again.
    private func read(group name: String, generation: Int) -> [KeyMatches]? {
        requests.count(.symbolQuery)
        guard let matches = try? catalogue.symbolMatchesByKey(prefix: name, under: source.path) else { return nil }
        let group = Self.ordered(matches)
        kept.withLock { if $0.generation == generation { _ = $0.groups.store(group, for: name, weight: max(1, group.count)) } }
        return group
    }

    private static func ordered(_ matches: [String: [DebugSymbols.Match]]) -> [KeyMatches] {
        matches.map { KeyMatches(key: $0.key, matches: $0.value) }.sorted { $0.key < $1.key }
    }

    /// A layout's path of a key, as `SymbolPath.folded` spells a directory.
    private static func folded(_ components: ArraySlice<String>) -> String { components.joined(separator: "/").lowercased() }
}
