import BundleModel
import Catalogue
import CompactStorage
import Synchronization
import SystemCalls

/// `.bundlefs/by-uuid` (SPEC.md, "Executables and debug symbols"): a directory per catalogued
/// Mach-O UUID or ELF build-id under SOURCE, holding `dSYM` (the DWARF file), `executable` and the
/// `Info.plist` that `bundlefs symbols` prints. Answered from the catalogue's index, once per
/// UUID between two updates: what a question read is kept until the update stream says the
/// catalogue changed those UUIDs (`invalidate(keys:)`), so that a lookup, its attributes and a read
/// of the same UUID agree, `ls -l` of 30,000 UUIDs is one query, not 60,000, and the first listing
/// after an update reads again only the UUIDs it touched. Nothing here follows a path out of SOURCE.
final class UUIDViews: Sendable {
    let source: ScanRoot
    let catalogue: any SymbolIndex
    /// Counts the catalogue queries made here (`RequestCounts`).
    let requests: RequestCounts
    /// Told of each catalogued file not served (`Catalogue.openRecorded`), for the log.
    let refused: @Sendable (SymbolFileRefusal) -> Void
    private let kept = Mutex(Kept())

    /// What was read from the catalogue since the last update.
    private struct Kept {
        /// Every UUID's matches, from the last listing's one query, less what updates changed since.
        var all: [String: [DebugSymbols.Match]]?
        /// The UUIDs updates touched since `all` was read: read again, one by one, at the next listing.
        var stale = Set<String>()
        /// UUIDs asked for one at a time, unknown ones too (as no matches), within a bound.
        var asked = BoundedCache<String, [DebugSymbols.Match]>(limit: 4_096, keeping: 3_072)
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

    static let directoryName: FileName = "by-uuid"
    static let dSYMName: FileName = "dSYM"
    static let executableName: FileName = "executable"

    /// Every UUID under SOURCE with its matches, by key, from one query: what a listing shows.
    func allMatches() -> [String: [DebugSymbols.Match]] {
        let (all, stale, generation) = kept.withLock { ($0.all, $0.stale, $0.generation) }
        if let all, stale.isEmpty { return all }
        var matches: [String: [DebugSymbols.Match]]
        if var all, stale.count <= Self.staleKeysReadOneByOne {
            for key in stale {
                requests.count(.uuidQuery)
                guard let current = try? catalogue.symbolMatches(uuidKey: key, under: source.path) else { return all }
                all[key] = current.isEmpty ? nil : current
            }
            matches = all
        } else {
            requests.count(.uuidListingQuery)
            matches = (try? catalogue.symbolMatchesByKey(under: source.path)) ?? [:]
        }
        kept.withLock {
            if $0.generation == generation {
                $0.all = matches
                $0.stale = []
            }
        }
        return matches
    }

    /// Past this many UUIDs changed, one query for all of them is cheaper than one for each.
    static let staleKeysReadOneByOne = 512

    /// What a UUID's view is made from, for its attributes; empty for an unknown UUID.
    func accessSources(_ key: String) -> [(bundle: FilePath, directory: FilePath)] {
        matches(key).map { ($0.bundle, $0.slice.file.parent) }
    }

    /// After an update that may have changed anything (a reload): nothing kept is kept.
    func invalidate() {
        kept.withLock { $0 = Kept(generation: $0.generation + 1) }
    }

    /// After an update that touched these UUIDs (those of the bundles it changed, as they were and
    /// as they are): only their answers are read again; every other UUID's stands.
    func invalidate(keys: Set<String>) {
        kept.withLock { kept in
            kept.generation += 1
            guard !keys.isEmpty else { return }
            for key in keys { kept.asked.remove(key) }
            if kept.all != nil { kept.stale.formUnion(keys) }
        }
    }

    /// The key a name stands for: only the spelling the listing shows (`DebugSymbols.spelling`),
    /// and only a known UUID. `known` are matches a listing already read.
    func key(forName name: FileName, known: [String: [DebugSymbols.Match]] = [:]) -> String? {
        guard let key = BinarySlice.uuidKey(name.string), DebugSymbols.spelling(known[key] ?? matches(key)) == name.string else { return nil }
        return key
    }

    /// The slices with this UUID in bundles under SOURCE, dSYMs first.
    func matches(_ key: String) -> [DebugSymbols.Match] {
        let (known, generation) = kept.withLock { kept -> ([DebugSymbols.Match]?, Int) in
            if let all = kept.all, !kept.stale.contains(key) { return (all[key] ?? [], kept.generation) }
            return (kept.asked.value(for: key), kept.generation)
        }
        if let known { return known }
        requests.count(.uuidQuery)
        let matches = (try? catalogue.symbolMatches(uuidKey: key, under: source.path)) ?? []
        kept.withLock { if $0.generation == generation { $0.asked.store(matches, for: key, weight: 1) } }
        return matches
    }

    func infoBytes(_ key: String) -> [UInt8]? {
        let matches = matches(key)
        guard let entry = DebugSymbols.entry(matches), let uuid = DebugSymbols.spelling(matches) else { return nil }
        return DebugSymbols.plist([(uuid, entry)])
    }

    /// `dSYM` or `executable`: the real file, resolved, when it is a regular file inside SOURCE.
    func file(named name: FileName, key: String) -> (path: FilePath, status: FileStatus)? {
        switch name {
        case Self.dSYMName: file(.debugInfo, key: key).map { ($0.path, $0.status) }
        case Self.executableName: file(.executable, key: key).map { ($0.path, $0.status) }
        default: nil
        }
    }

    /// An image's DWARF file or executable, as `dSYM` and `executable` show it, with the match it
    /// is the file of.
    func file(_ role: SymbolLayout.Role, key: String) -> (path: FilePath, status: FileStatus, match: DebugSymbols.Match)? {
        Self.file(role, in: matches(key), within: source.path, refused: refused)
    }

    /// The match an image's file is chosen from: for the DWARF file (`debuginfo`) the first dSYM,
    /// for the executable the first other bundle, in `DebugSymbols`' order (dSYMs first, then by
    /// path); so the symbol stores serve what by-uuid does.
    static func match(_ role: SymbolLayout.Role, in matches: [DebugSymbols.Match]) -> DebugSymbols.Match? {
        role == .debugInfo ? matches.first { $0.isDSYM } : matches.first { !$0.isDSYM }
    }

    /// That match's file, when it is the one indexed, unchanged, inside `root`.
    static func file(_ role: SymbolLayout.Role, in matches: [DebugSymbols.Match], within root: FilePath,
                     refused: (SymbolFileRefusal) -> Void) -> (path: FilePath, status: FileStatus, match: DebugSymbols.Match)? {
        found(try SymbolFileFinder.first(among: match(role, in: matches).map { [$0] } ?? [], roots: [root], refused: refused))
    }

    /// The file of a symbol store's path, as the HTTP server finds it (`SymbolFileFinder`).
    static func storeFile(_ role: SymbolLayout.Role, in matches: [DebugSymbols.Match], within root: FilePath,
                          refused: (SymbolFileRefusal) -> Void) -> (path: FilePath, status: FileStatus, match: DebugSymbols.Match)? {
        found(try SymbolFileFinder.file(for: role, in: matches, roots: [root], refused: refused))
    }

    /// The finder's file, closed: its reads open it again by path and find the same file or
    /// fail (`sourceFile`). Nil also when the process is out of descriptors or memory: the
    /// kernel asks again.
    private static func found(_ find: @autoclosure () throws -> SymbolFile?) -> (path: FilePath, status: FileStatus, match: DebugSymbols.Match)? {
        guard let file = try? find() else { return nil }
        return (file.path, file.status, file.match)
    }
}
