import BundleModel
import Foundation
import GRDB
import GRDBSQLite

/// Keeps `launch_lists` (one blob of handlers per claim target, `LaunchListCoding`) equal to the
/// claims of the applications' rows (`bundles.launch_claims`, `ApplicationClaims`).
///
/// Triggers on `bundles` note every application row inserted, changed (its path, identifier,
/// version or claims) or deleted, with the claims it had, in `launch_changes`, whoever changed it:
/// the writer, a subtree's removal or rename, an archive read again. Before each write transaction
/// commits, `settle` mends the lists those claims name: the noted applications' entries go, and the
/// current rows' come back in their place. So a list never disagrees with the rows a reader sees.
/// A first index drops the insert trigger and builds every list at its end (`rebuild`), as it
/// builds its secondary indexes.
enum LaunchLists {
    static let insertTrigger = "launch_claims_inserted"

    static let schemaSQL = """
        CREATE TABLE launch_lists (
            target_kind TEXT NOT NULL,
            target TEXT NOT NULL,
            entries BLOB NOT NULL,
            UNIQUE (target_kind, target)
        );
        CREATE TABLE launch_changes (bundle_id INTEGER NOT NULL, claims BLOB);
        CREATE TRIGGER launch_claims_changed AFTER UPDATE OF path, identifier, version, launch_claims ON bundles
            WHEN OLD.launch_claims IS NOT NULL OR NEW.launch_claims IS NOT NULL
            BEGIN INSERT INTO launch_changes (bundle_id, claims) VALUES (OLD.id, OLD.launch_claims); END;
        CREATE TRIGGER launch_claims_deleted AFTER DELETE ON bundles WHEN OLD.launch_claims IS NOT NULL
            BEGIN INSERT INTO launch_changes (bundle_id, claims) VALUES (OLD.id, OLD.launch_claims); END;
        """

    static let insertTriggerSQL = """
        CREATE TRIGGER IF NOT EXISTS \(insertTrigger) AFTER INSERT ON bundles WHEN NEW.launch_claims IS NOT NULL
            BEGIN INSERT INTO launch_changes (bundle_id, claims) VALUES (NEW.id, NULL); END
        """

    /// Applies the changes noted in this transaction to the lists they touch.
    static func settle(_ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM launch_changes)") == true else { return }
        var removed = Set<Int64>()
        var targets = Set<ApplicationClaims.TargetKey>()
        for row in try Row.fetchAll(db, sql: "SELECT bundle_id, claims FROM launch_changes") {
            removed.insert(row[0])
            if let claims = row[1] as Data? {
                claims.withUnsafeBytes { for claim in ApplicationClaims.decode($0) { targets.insert(claim.target) } }
            }
        }
        let table = try ApplicationTable(db, sql: """
            SELECT id, path, identifier, version, launch_claims FROM bundles
            WHERE id IN (SELECT bundle_id FROM launch_changes) AND launch_claims IS NOT NULL
            """)
        targets.formUnion(table.claims.keys)
        let select = try RawStatement(db, "SELECT entries FROM launch_lists WHERE target_kind = ? AND target = ?")
        let store = try Store(db)
        for target in targets {
            select.bind(1, target.kindName)
            select.bind(2, target.valueText)
            defer { sqlite3_reset(select.handle) }
            let code = sqlite3_step(select.handle)
            guard code == SQLITE_ROW || code == SQLITE_DONE else { throw select.error(code) }
            let existing = code == SQLITE_ROW
                ? UnsafeRawBufferPointer(start: sqlite3_column_blob(select.handle, 0), count: Int(sqlite3_column_bytes(select.handle, 0))) : nil
            let list = try table.list(for: target, mergedWith: existing, removing: removed)
            try store.put(list, for: target)
        }
        try db.execute(sql: "DELETE FROM launch_changes")
    }

    /// Every list again, from every application's row.
    static func rebuild(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM launch_lists; DELETE FROM launch_changes")
        let table = try ApplicationTable(db, sql: "SELECT id, path, identifier, version, launch_claims FROM bundles WHERE launch_claims IS NOT NULL")
        let store = try Store(db)
        for target in table.claims.keys { try store.put(try table.list(for: target, mergedWith: nil, removing: []), for: target) }
    }

    /// Writes a list, or deletes it when it is empty.
    private struct Store {
        let upsert: RawStatement
        let delete: RawStatement

        init(_ db: Database) throws {
            upsert = try RawStatement(db, """
                INSERT INTO launch_lists (target_kind, target, entries) VALUES (?, ?, ?)
                ON CONFLICT (target_kind, target) DO UPDATE SET entries = excluded.entries
                """)
            delete = try RawStatement(db, "DELETE FROM launch_lists WHERE target_kind = ? AND target = ?")
        }

        func put(_ list: LaunchListWriter, for target: ApplicationClaims.TargetKey) throws {
            let statement = list.count == 0 ? delete : upsert
            statement.bind(1, target.kindName)
            statement.bind(2, target.valueText)
            if list.count > 0 { statement.bind(3, bytes: list.bytes) }
            try statement.execute()
        }
    }
}

/// Applications' rows as one arena of bytes (each's version key, path, identifier, version), and
/// their claims by target: what lists are made of, without an allocation per claim.
struct ApplicationTable {
    struct Application {
        var bundleID: Int64
        var versionKey: Range<Int>
        var path: Range<Int>
        var identifier: Range<Int>?
        var version: Range<Int>?
    }

    struct Claim {
        var application: Int32
        var order: UInt8
        var role: UInt8
    }

    private(set) var bytes: [UInt8] = []
    private(set) var applications: [Application] = []
    private(set) var claims: [ApplicationClaims.TargetKey: [Claim]] = [:]

    /// Reads `sql`'s rows: id, path, identifier, version, packed claims.
    init(_ db: Database, sql: String) throws {
        let statement = try RawStatement(db, sql)
        defer { sqlite3_reset(statement.handle) }
        while true {
            let code = sqlite3_step(statement.handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw statement.error(code) }
            let handle = statement.handle
            func column(_ index: Int32) -> UnsafeRawBufferPointer? {
                guard sqlite3_column_type(handle, index) != SQLITE_NULL else { return nil }
                let start = index == 4 ? sqlite3_column_blob(handle, index) : UnsafeRawPointer(sqlite3_column_text(handle, index))
                return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, index)))
            }
            let version = column(3)
            let key = BundleVersion.Key(version.map { String(decoding: $0, as: UTF8.self) } ?? "").bytes
            let index = Int32(applications.count)
            let versionKey = append(key), path = append(column(1))
            var identifierRange: Range<Int>?, versionRange: Range<Int>?
            if let identifier = column(2) { identifierRange = append(identifier) }
            if let version { versionRange = append(version) }
            applications.append(Application(bundleID: sqlite3_column_int64(handle, 0), versionKey: versionKey, path: path,
                                            identifier: identifierRange, version: versionRange))
            guard let packed = column(4) else { continue }
            for claim in ApplicationClaims.decode(packed) {
                claims[claim.target, default: []].append(Claim(application: index, order: claim.order, role: claim.role))
            }
        }
    }

    private mutating func append(_ part: some Collection<UInt8>) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: part)
        return start..<bytes.count
    }

    private mutating func append(_ part: UnsafeRawBufferPointer?) -> Range<Int> { append(part ?? UnsafeRawBufferPointer(start: nil, count: 0)) }

    /// The list of `target`: the entries of `existing` (a stored list) whose application is not in
    /// `removed`, merged with these applications' claims of it, in key order, each key once.
    func list(for target: ApplicationClaims.TargetKey, mergedWith existing: UnsafeRawBufferPointer?,
                       removing removed: Set<Int64>) throws -> LaunchListWriter {
        var added = claims[target] ?? []
        var writer = LaunchListWriter()
        try bytes.withUnsafeBytes { arena in
            func part(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: arena[range]) }
            func key(_ claim: Claim) -> LaunchListCoding.EntryKey {
                let application = applications[Int(claim.application)]
                return LaunchListCoding.EntryKey(order: claim.order, versionKey: part(application.versionKey), path: part(application.path), role: claim.role)
            }
            added.sort { LaunchListCoding.compareKeys(key($0), key($1)) < 0 }
            let reader = try existing.map { try LaunchListReader($0) }
            var hasOld = try reader?.next() ?? false
            var next = 0
            // No key comes twice: an application's claims are packed once each, and every
            // application re-added here is among those removed.
            while true {
                if hasOld, let reader, removed.contains(reader.bundleID) {
                    hasOld = try reader.next()
                    continue
                }
                let takeOld: Bool
                if hasOld, let reader {
                    takeOld = next == added.count || LaunchListCoding.compareKeys(reader.key, key(added[next])) <= 0
                } else if next < added.count {
                    takeOld = false
                } else {
                    break
                }
                if takeOld, let reader {
                    writer.append(order: reader.order, role: reader.role, bundleID: reader.bundleID, versionKey: reader.versionKey, path: reader.path,
                                  identifier: reader.identifier, version: reader.version)
                    hasOld = try reader.next()
                } else {
                    let claim = added[next]
                    let application = applications[Int(claim.application)]
                    writer.append(order: claim.order, role: claim.role, bundleID: application.bundleID, versionKey: part(application.versionKey),
                                  path: part(application.path), identifier: application.identifier.map(part), version: application.version.map(part))
                    next += 1
                }
            }
        }
        return writer
    }
}
