public import Catalogue
import GRDB
import Indexer
public import Scanner

/// Everything in a catalogue that a fresh index must reproduce: rows without ids and times.
public struct CatalogueDump: Equatable, CustomStringConvertible, Sendable {
    public var bundles: [String]
    public var strings: [String]
    public var problems: [String]
    public var directories: [String]
    public var claims: [String]

    public init(_ catalogue: Catalogue) throws {
        (bundles, strings, problems, directories, claims) = try catalogue.read { db in
            let columns = "path, name, identifier, kind, is_package, package_reasons, is_bundle, layout, info_bundle_name, info_display_name, version, short_version, numeric_version, package_type, signature, executable_name, executable, development_region, declared_localizations, localizations, strings_tables, info_file, info_format, info, resources_directory, finder_flags, finder_info_source, document_types, type_declarations, error_count, warning_count"
            let bundles = try Row.fetchAll(db, sql: "SELECT \(columns) FROM bundles ORDER BY path").map { "\($0)" }
            let strings = try Row.fetchAll(db, sql: "SELECT b.path, s.localization, s.key, s.value FROM localized_strings s JOIN bundles b ON b.id = s.bundle_id ORDER BY 1, 2, 3").map { "\($0)" }
            let problems = try Row.fetchAll(db, sql: "SELECT b.path, p.severity, p.message FROM problems p JOIN bundles b ON b.id = p.bundle_id ORDER BY 1, 2, 3").map { "\($0)" }
            let directories = try Row.fetchAll(db, sql: "SELECT path, inode, extension FROM directories ORDER BY path").map { "\($0)" }
            let claims = try Row.fetchAll(db, sql: "SELECT b.path, c.extension, c.content_type FROM claims c JOIN bundles b ON b.id = c.application_id ORDER BY 1, 2, 3").map { "\($0)" }
            return (bundles, strings, problems, directories, claims)
        }
    }

    public var description: String {
        "bundles:\n" + bundles.joined(separator: "\n") + "\nstrings: \(strings.count), problems: \(problems), directories: \(directories.count), claims: \(claims)"
    }

    /// The first difference, for a readable failure.
    public func difference(from other: CatalogueDump) -> String {
        for (label, mine, theirs) in [("bundles", bundles, other.bundles), ("strings", strings, other.strings),
                                      ("problems", problems, other.problems), ("directories", directories, other.directories),
                                      ("claims", claims, other.claims)] where mine != theirs {
            let onlyMine = Set(mine).subtracting(theirs).sorted().prefix(5)
            let onlyTheirs = Set(theirs).subtracting(mine).sorted().prefix(5)
            return "\(label) differ; only in catalogue: \(Array(onlyMine)); only in fresh index: \(Array(onlyTheirs))"
        }
        return "no difference"
    }

    /// The dump of a fresh index of `root`, made in a temporary catalogue.
    public static func ofFreshIndex(_ root: String, options: ScanOptions = ScanOptions(distrustWindow: 0)) throws -> CatalogueDump {
        let directory = TemporaryDirectory("fresh")
        let fresh = try Catalogue(path: directory.appending("fresh.sqlite"), mode: .readWrite)
        _ = try Indexer(catalogue: fresh, options: options).index(root: root)
        return try CatalogueDump(fresh)
    }
}
