public import Catalogue
import GRDB
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
        (bundles, strings, problems, directories, claims, binaries, archives) = try catalogue.read { db in
            let columns = "path, archive, member, name, identifier, kind, is_package, package_reasons, is_bundle, layout, info_bundle_name, info_display_name, version, short_version, numeric_version, package_type, signature, executable_name, executable, development_region, declared_localizations, localizations, strings_tables, info_file, info_format, info, hex(info_plist), resources_directory, finder_flags, finder_info_source, document_types, type_declarations, error_count, warning_count"
            let bundles = try Row.fetchAll(db, sql: "SELECT \(columns) FROM bundles ORDER BY path").map { "\($0)" }
            let strings = try Row.fetchAll(db, sql: "SELECT b.path, s.localization, s.key, s.value FROM localized_strings s JOIN bundles b ON b.id = s.bundle_id ORDER BY 1, 2, 3").map { "\($0)" }
            let problems = try Row.fetchAll(db, sql: "SELECT b.path, p.severity, p.message FROM problems p JOIN bundles b ON b.id = p.bundle_id ORDER BY 1, 2, 3").map { "\($0)" }
            let directories = try Row.fetchAll(db, sql: "SELECT path, inode, extension FROM directories ORDER BY path").map { "\($0)" }
            let claims = try Row.fetchAll(db, sql: "SELECT b.path, c.extension, c.content_type FROM claims c JOIN bundles b ON b.id = c.application_id ORDER BY 1, 2, 3").map { "\($0)" }
            let binaries = try Row.fetchAll(db, sql: """
                SELECT b.path, x.file, x.format, x.arch, x.file_type, x.uuid_key, x.platform, x.min_os, x.sdk, x.signature,
                       x.signing_identifier, x.team_identifier FROM binaries x JOIN bundles b ON b.id = x.bundle_id ORDER BY 1, 2, 4
                """).map { "\($0)" }
            let archives = try Row.fetchAll(db, sql: "SELECT path, directory, size, inode, members, error FROM archives ORDER BY path").map { "\($0)" }
            return (bundles, strings, problems, directories, claims, binaries, archives)
        }
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
