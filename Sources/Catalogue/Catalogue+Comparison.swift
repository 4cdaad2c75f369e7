import GRDB

/// Everything in the catalogue that a fresh index of the same tree must reproduce: rows without
/// ids and times, each table's rows sorted, for comparing two catalogues byte for byte (tests and
/// benchmarks hold the watcher to a fresh index with it).
extension Catalogue {
    public static let comparedTables = ["bundles", "strings", "problems", "directories", "claims", "binaries", "archives", "launch_claims", "type_tags"]

    /// Each of `comparedTables`, its rows as lines.
    public func comparableRows() throws -> [String: [String]] {
        try read { db in
            let bundleColumns = "path, archive, member, name, identifier, kind, is_package, package_reasons, is_bundle, layout, info_bundle_name, info_display_name, version, short_version, numeric_version, package_type, signature, executable_name, executable, development_region, declared_localizations, localizations, strings_tables, info_file, info_format, info, hex(info_plist), resources_directory, finder_flags, finder_info_source, document_types, type_declarations, error_count, warning_count"
            let queries = [
                "bundles": "SELECT \(bundleColumns) FROM bundles ORDER BY path",
                "strings": "SELECT b.path, s.localization, s.key, s.value FROM localized_strings s JOIN bundles b ON b.id = s.bundle_id ORDER BY 1, 2, 3",
                "problems": "SELECT b.path, p.severity, p.message FROM problems p JOIN bundles b ON b.id = p.bundle_id ORDER BY 1, 2, 3",
                "directories": "SELECT path, inode, extension FROM directories ORDER BY path",
                "claims": "SELECT b.path, c.extension, c.content_type FROM claims c JOIN bundles b ON b.id = c.application_id ORDER BY 1, 2, 3",
                "binaries": """
                    SELECT b.path, x.file, x.format, x.arch, x.file_type, x.uuid_key, x.platform, x.min_os, x.sdk, x.signature,
                           x.signing_identifier, x.team_identifier FROM binaries x JOIN bundles b ON b.id = x.bundle_id ORDER BY 1, 2, 4
                    """,
                "archives": "SELECT path, directory, size, inode, members, error FROM archives ORDER BY path",
                "launch_claims": """
                    SELECT b.path, c.target_kind, c.target, c.role, c.rank, c.path, c.identifier, c.version
                    FROM launch_claims c JOIN bundles b ON b.id = c.bundle_id
                    ORDER BY 1, 2, 3, 4, 5
                    """,
                "type_tags": "SELECT b.path, t.kind, t.value, t.type_key FROM type_tags t JOIN bundles b ON b.id = t.bundle_id ORDER BY 1, 2, 3, 4",
            ]
            return try queries.mapValues { sql in try Row.fetchAll(db, sql: sql).map { "\($0)" } }
        }
    }
}
