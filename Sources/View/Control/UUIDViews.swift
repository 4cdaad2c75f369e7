import BundleModel
import Catalogue
import Synchronization
import SystemCalls

/// `.bundlefs/by-uuid` (SPEC.md, "Executables and debug symbols"): a directory per catalogued
/// Mach-O UUID or ELF build-id under SOURCE, holding `dSYM` (the DWARF file), `executable` and the
/// `Info.plist` that `bundlefs symbols` prints. Answered from the catalogue's index on each
/// question, so it is as live as the catalogue; nothing here follows a path out of SOURCE.
final class UUIDViews: Sendable {
    let source: ScanRoot
    let catalogue: Catalogue
    /// Per UUID key, the bundles and the directories of the files its view is made from: what a
    /// UUID directory's attributes need (`access`). Kept from the last listing until an update
    /// names any bundle, so that `ls -l` of 30,000 UUIDs is not 60,000 queries.
    private let accessSources = Mutex<[String: [(bundle: FilePath, directory: FilePath)]]?>(nil)

    init(source: ScanRoot, catalogue: Catalogue) {
        self.source = source
        self.catalogue = catalogue
    }

    static let directoryName: FileName = "by-uuid"
    static let dSYMName: FileName = "dSYM"
    static let executableName: FileName = "executable"

    /// Every UUID under SOURCE with its matches, by key, from one query: what a listing shows.
    func allMatches() -> [String: [DebugSymbols.Match]] {
        let matches = (try? catalogue.symbolMatchesByKey(under: source.path)) ?? [:]
        accessSources.withLock { $0 = matches.mapValues { $0.map(Self.accessSource) } }
        return matches
    }

    /// What a UUID's view is made from, for its attributes; empty for an unknown UUID.
    func accessSources(_ key: String) -> [(bundle: FilePath, directory: FilePath)] {
        if let kept = accessSources.withLock({ $0 }) { return kept[key] ?? [] }
        return matches(key).map(Self.accessSource)
    }

    private static func accessSource(_ match: DebugSymbols.Match) -> (bundle: FilePath, directory: FilePath) {
        (match.bundle, match.slice.file.parent)
    }

    /// After an update: what was kept may have changed.
    func invalidate() { accessSources.withLock { $0 = nil } }

    /// The key a name stands for: only the spelling the listing shows (`DebugSymbols.spelling`),
    /// and only a known UUID. `known` are matches a listing already read.
    func key(forName name: FileName, known: [String: [DebugSymbols.Match]] = [:]) -> String? {
        guard let key = BinarySlice.uuidKey(name.string), DebugSymbols.spelling(known[key] ?? matches(key)) == name.string else { return nil }
        return key
    }

    /// The slices with this UUID in bundles under SOURCE, dSYMs first.
    func matches(_ key: String) -> [DebugSymbols.Match] {
        (try? catalogue.symbolMatches(uuidKey: key, under: source.path)) ?? []
    }

    func infoBytes(_ key: String) -> [UInt8]? {
        let matches = matches(key)
        guard let entry = DebugSymbols.entry(matches), let uuid = DebugSymbols.spelling(matches) else { return nil }
        return DebugSymbols.plist([(uuid, entry)])
    }

    /// `dSYM` or `executable`: the real file, resolved, when it is a regular file inside SOURCE.
    func file(named name: FileName, key: String) -> (path: FilePath, status: FileStatus)? {
        let matches = matches(key)
        let match: DebugSymbols.Match?
        switch name {
        case Self.dSYMName: match = matches.first { $0.isDSYM }
        case Self.executableName: match = matches.first { !$0.isDSYM }
        default: return nil
        }
        guard let match, let real = try? match.file.resolved(), real.isWithin(source.path),
              let status = try? FileStatus.of(real), status.type == .regular
        else { return nil }
        return (real, status)
    }
}
