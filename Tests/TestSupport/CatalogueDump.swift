public import Catalogue
import Indexer
public import Scanner
import SystemCalls

/// Everything in a catalogue that a fresh index must reproduce: rows without ids and times,
/// compared byte for byte (a row naming `Résumé` in NFC is not one naming it in NFD).
public struct CatalogueDump: Equatable, CustomStringConvertible, Sendable {
    public var bundles: [String]
    public var strings: [String]
    public var problems: [String]
    public var directories: [String]
    public var claims: [String]
    public var binaries: [String]
    public var archives: [String]

    public init(_ catalogue: Catalogue) throws {
        let rows = try catalogue.comparableRows()
        (bundles, strings, problems, directories, claims, binaries, archives) = (
            rows["bundles"] ?? [], rows["strings"] ?? [], rows["problems"] ?? [], rows["directories"] ?? [],
            rows["claims"] ?? [], rows["binaries"] ?? [], rows["archives"] ?? [])
    }

    public static func == (a: CatalogueDump, b: CatalogueDump) -> Bool {
        zip(a.tables, b.tables).allSatisfy { Self.exact($0.rows) == Self.exact($1.rows) }
    }

    private var tables: [(label: String, rows: [String])] {
        [("bundles", bundles), ("strings", strings), ("problems", problems), ("directories", directories), ("claims", claims), ("binaries", binaries), ("archives", archives)]
    }

    private static func exact(_ rows: [String]) -> [FilePath] { rows.map { FilePath($0) } }

    public var description: String {
        "bundles:\n" + bundles.joined(separator: "\n") + "\nstrings: \(strings.count), problems: \(problems), directories: \(directories.count), claims: \(claims)"
    }

    /// The first difference, for a readable failure.
    public func difference(from other: CatalogueDump) -> String {
        for ((label, mine), (_, theirs)) in zip(tables, other.tables) where Self.exact(mine) != Self.exact(theirs) {
            let onlyMine = Set(Self.exact(mine)).subtracting(Self.exact(theirs)).sorted().prefix(5).map(\.string)
            let onlyTheirs = Set(Self.exact(theirs)).subtracting(Self.exact(mine)).sorted().prefix(5).map(\.string)
            return "\(label) differ; only in catalogue: \(onlyMine); only in fresh index: \(onlyTheirs)"
        }
        return "no difference"
    }

    /// The dump of a fresh index of `root`, made in a temporary catalogue.
    public static func ofFreshIndex(_ root: String, options: ScanOptions = ScanOptions(distrustWindow: 0)) throws -> CatalogueDump {
        let directory = TemporaryDirectory("fresh")
        let fresh = try Catalogue(path: directory.appending("fresh.sqlite"), mode: .readWrite)
        _ = try Indexer(catalogue: fresh, options: options).index(root: FilePath(root))
        return try CatalogueDump(fresh)
    }
}
