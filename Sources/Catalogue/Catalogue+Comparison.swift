import Foundation
import GRDB

/// Everything in the catalogue that a fresh index of the same tree must reproduce: rows without
/// ids and times, each table's rows sorted, for comparing two catalogues byte for byte (tests and
/// benchmarks hold the watcher to a fresh index with it).
extension Catalogue {
    // Every column of a bundle's row but its id, time of reading, file stamps (what a rescan
    // compares; a file touched to the same content may keep an older one) and packed claims
    // (compared as `launch_lists`).
    public static let comparedTables = ["bundles", "strings", "problems", "directories", "claims", "binaries", "archives", "launch_lists", "type_tags"]

    /// Each of `comparedTables`, its rows as lines.
    public func comparableRows() throws -> [String: [String]] {
        try read { db in
            let bundleColumns = "path, archive, member, name, identifier, kind, is_package, package_reasons, is_bundle, layout, info_bundle_name, info_display_name, version, short_version, numeric_version, package_type, signature, executable_name, executable, development_region, declared_localizations, localizations, strings_tables, info_file, info_format, info, hex(info_plist), resources_directory, finder_flags, finder_info_source, document_types, type_declarations, error_count, warning_count, version_resources_directory, icon, backup, installs_to, component"
            let queries = [
                "bundles": "SELECT \(bundleColumns) FROM bundles ORDER BY path",
                "strings": "SELECT b.path, s.localization, s.key, s.value FROM localized_strings s JOIN bundles b ON b.id = s.bundle_id ORDER BY 1, 2, 3",
                "problems": "SELECT b.path, p.severity, p.message FROM problems p JOIN bundles b ON b.id = p.bundle_id ORDER BY 1, 2, 3",
                "directories": "SELECT path, inode, extension FROM directories ORDER BY path",
                "claims": "SELECT b.path, c.extension, c.content_type FROM claims c JOIN bundles b ON b.id = c.application_id ORDER BY 1, 2, 3",
                "binaries": """
                    SELECT b.path, x.file, x.format, x.arch, x.file_type, x.uuid_key, x.platform, x.min_os, x.sdk, x.signature,
                           x.signing_identifier, x.team_identifier, x.disk_path, x.device, x.inode, x.size, x.modification_time
                    FROM binaries x JOIN bundles b ON b.id = x.bundle_id ORDER BY 1, 2, 4
                    """,
                "archives": "SELECT path, directory, size, inode, members, error FROM archives ORDER BY path",
                "type_tags": "SELECT b.path, t.kind, t.value, t.type_key FROM type_tags t JOIN bundles b ON b.id = t.bundle_id ORDER BY 1, 2, 3, 4",
            ]
            var rows = try queries.mapValues { sql in try Row.fetchAll(db, sql: sql).map { "\($0)" } }
            rows["launch_lists"] = try Self.comparableLists(db)
            return rows
        }
    }

    /// Every table's rows as lines, sorted, and the schema (`sqlite_master`) under "schema": what a
    /// first index made in bulk (`buildingIndexesAfterwards`) must leave exactly as the plain path
    /// does. A bundle's id is given as its path, and what differs between two runs on one tree is
    /// left out: the row ids, times of writing, the catalogue's random identity, and `columns`
    /// ("table.column").
    public func everyRow(leavingOut columns: Set<String> = []) throws -> [String: [String]] {
        let varying: Set<String> = ["bundles.id", "bundle_names.id", "bundles.scanned_at", "roots.last_indexed_at", "identity.catalogue", "outbox.queued_at"]
        return try read { db in
            var rows = ["schema": try String.fetchAll(db, sql: "SELECT type || ' ' || name || ' ' || tbl_name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY name")]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                // Its entries name bundles by id.
                if table == "launch_lists" { rows[table] = try Self.comparableLists(db); continue }
                // The trigram index's shadow tables hold its b-tree, whose pages differ with the
                // order it was written in; what it finds is compared instead.
                if table.hasPrefix("bundle_name_index_") { continue }
                if table == "bundle_name_index" { rows[table] = try Self.comparableNameIndex(db); continue }
                let values = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]).compactMap { row -> String? in
                    let column: String = row[0]
                    if varying.contains("\(table).\(column)") || columns.contains("\(table).\(column)") { return nil }
                    if column == "bundle_id" || column == "application_id" { return "quote((SELECT path FROM bundles WHERE id = \(column)))" }
                    return "quote(\(column))"
                }
                rows[table] = try String.fetchAll(db, sql: "SELECT \(values.joined(separator: " || ' ' || ")) FROM \(table)").sorted()
            }
            return rows
        }
    }

    /// For each of `bundle_names`' rows, its token count in the trigram index and whether a search
    /// of its whole name finds it, and a line for each row indexed that `bundle_names` no longer
    /// has: read-only, where FTS5's 'integrity-check' would need a write.
    static func comparableNameIndex(_ db: Database) throws -> [String] {
        let found = "(SELECT count(*) FROM bundle_name_index WHERE bundle_name_index MATCH '\"' || replace(n.name, '\"', '\"\"') || '\"' AND rowid = n.id)"
        let rows = try String.fetchAll(db, sql: """
            SELECT quote((SELECT path FROM bundles WHERE id = n.bundle_id)) || ' ' || quote(n.localization) || ' ' || n.key || ' ' || quote(n.name)
                || ' size ' || ifnull((SELECT hex(sz) FROM bundle_name_index_docsize WHERE id = n.id), 'none') || ' found ' || \(found)
            FROM bundle_names n
            """)
        let strays = try String.fetchAll(db, sql: "SELECT 'indexed without a name: ' || id FROM bundle_name_index_docsize WHERE id NOT IN (SELECT id FROM bundle_names)")
        return (rows + strays).sorted()
    }

    /// Every list's entries as lines, with the application's path for its id (ids differ between
    /// catalogues), and a line for any entry out of the list's order or naming no application.
    static func comparableLists(_ db: Database) throws -> [String] {
        var paths: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path FROM bundles WHERE launch_claims IS NOT NULL") { paths[row[0]] = row[1] }
        var lines: [String] = []
        for row in try Row.fetchAll(db, sql: "SELECT target_kind, target, entries FROM launch_lists ORDER BY 1, 2") {
            let kind: String = row[0], target: String = row[1]
            let entries: Data = row[2]
            try entries.withUnsafeBytes { blob in
                let reader = try LaunchListReader(blob)
                var previous: (order: UInt8, versionKey: [UInt8], path: [UInt8], role: UInt8)?
                while try reader.next() {
                    let text = { (bytes: UnsafeRawBufferPointer?) in bytes.map { String(decoding: $0, as: UTF8.self) } ?? "nil" }
                    let path = String(decoding: reader.path, as: UTF8.self)
                    lines.append("\(kind) \(target) \(reader.order) \(reader.role) \(path) \(text(reader.identifier)) \(text(reader.version))"
                                 + (paths[reader.bundleID] == path ? "" : " (names bundle \(reader.bundleID), which is \(paths[reader.bundleID] ?? "none"))"))
                    if let previous {
                        let order = previous.versionKey.withUnsafeBytes { versionKey in
                            previous.path.withUnsafeBytes { path in
                                LaunchListCoding.compareKeys(LaunchListCoding.EntryKey(order: previous.order, versionKey: versionKey, path: path, role: previous.role),
                                                             reader.key)
                            }
                        }
                        if order >= 0 { lines.append("\(kind) \(target): \(path) out of order") }
                    }
                    previous = (reader.order, Array(reader.versionKey), Array(reader.path), reader.role)
                }
            }
        }
        return lines.sorted()
    }
}
