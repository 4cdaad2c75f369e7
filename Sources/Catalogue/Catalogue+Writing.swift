public import BundleModel
import GRDB
public import Scanner

/// Writing: scan events, removals, claims. Each call is one transaction.
extension Catalogue {
    /// Applies a batch of scan events in one transaction, in their order.
    public func apply(_ events: [ScanEvent], scannedAt: Double) throws {
        try write { db in
            for event in events {
                switch event {
                case let .bundle(record): try Self.upsert(record, scannedAt: scannedAt, in: db)
                case let .bundleRemoved(path): try Self.deleteBundle(at: path, in: db)
                case let .directory(row): try Self.upsert(row, in: db)
                }
            }
        }
    }

    static func upsert(_ record: BundleRecord, scannedAt: Double, in db: Database) throws {
        let statement = try db.cachedStatement(sql: RecordColumns.upsertSQL)
        guard let id = try Int64.fetchOne(statement, arguments: RecordColumns.arguments(for: record, scannedAt: scannedAt)) else { return }
        try db.cachedStatement(sql: "DELETE FROM localized_strings WHERE bundle_id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM problems WHERE bundle_id = ?").execute(arguments: [id])
        let insertString = try db.cachedStatement(sql: "INSERT INTO localized_strings (bundle_id, localization, key, value) VALUES (?, ?, ?, ?)")
        for (localization, table) in record.infoPlistStrings {
            for (key, value) in table { try insertString.execute(arguments: [id, localization, key, value]) }
        }
        let insertProblem = try db.cachedStatement(sql: "INSERT INTO problems (bundle_id, severity, message) VALUES (?, ?, ?)")
        for message in record.errors { try insertProblem.execute(arguments: [id, "error", message]) }
        for message in record.warnings { try insertProblem.execute(arguments: [id, "warning", message]) }
    }

    static func deleteBundle(at path: String, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM bundles WHERE path = ?").execute(arguments: [path])
    }

    static func upsert(_ row: DirectoryRow, in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO directories (path, change_time, inode, device, extension, trusted, sidecar) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(path) DO UPDATE SET change_time = excluded.change_time, inode = excluded.inode,
                device = excluded.device, extension = excluded.extension, trusted = excluded.trusted, sidecar = excluded.sidecar
            """)
        try statement.execute(arguments: [
            row.path, row.changeTime, Int64(bitPattern: row.inode), Int64(bitPattern: row.device), row.lowercasedExtension,
            row.trusted, StampCoding.encode(row.sidecar),
        ])
    }

    /// Removes directories and bundles that no longer exist, by path.
    public func remove(directories: [String], bundles: [String]) throws {
        guard !directories.isEmpty || !bundles.isEmpty else { return }
        try write { db in
            let deleteDirectory = try db.cachedStatement(sql: "DELETE FROM directories WHERE path = ?")
            for path in directories { try deleteDirectory.execute(arguments: [path]) }
            for path in bundles { try Self.deleteBundle(at: path, in: db) }
        }
    }

    /// Notes that a root was indexed completely.
    public func recordRoot(_ path: String, indexedAt time: Double) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO roots (path, last_indexed_at) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET last_indexed_at = excluded.last_indexed_at", arguments: [path, time])
        }
    }

    /// Replaces every package claim with `claims` (claims are global, rule 14).
    public func replaceClaims(_ claims: [PackageClaim]) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM claims")
            let insert = try db.cachedStatement(sql: "INSERT INTO claims (application_id, extension, content_type) SELECT id, ?, ? FROM bundles WHERE path = ?")
            for claim in claims { try insert.execute(arguments: [claim.ext, claim.contentType, claim.applicationPath]) }
        }
    }
}
