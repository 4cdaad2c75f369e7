public import BundleModel
import GRDB
public import SystemCalls

/// Lookups by executable UUID (rule 25), for `symbols` and the view's `by-uuid` directory.
extension Catalogue {
    /// The slices with this UUID (a key made by `BinarySlice.uuidKey`) in bundles at or under
    /// `under`, dSYMs first.
    public func symbolMatches(uuidKey: String, under: FilePath? = nil) throws -> [DebugSymbols.Match] {
        DebugSymbols.matches(key: uuidKey, in: try bundles(matching: BundleQuery(under: under, uuidKey: uuidKey)).map(\.record))
    }

    /// Every UUID of the bundles at or under `root`, sorted by key: each spelled as its slices
    /// spell it (`BinarySlice.uuid(format:key:)`), with its key.
    public func uuids(under root: FilePath) throws -> [(uuid: String, key: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT DISTINCT x.uuid_key, x.format FROM binaries x JOIN bundles ON bundles.id = x.bundle_id
                WHERE x.uuid_key IS NOT NULL AND \(Self.subtreeCondition) ORDER BY 1, 2
                """, arguments: Self.subtreeArguments(root)).map { row in
                let key: String = row[0]
                return (BinarySlice.uuid(format: BinarySlice.Format(rawValue: row[1]) ?? .machO, key: key), key)
            }
        }
    }

    /// The bundles at or under `root` with at least one UUID.
    public func bundlesWithUUIDs(under root: FilePath) throws -> [FilePath] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT path FROM bundles WHERE id IN (SELECT bundle_id FROM binaries WHERE uuid_key IS NOT NULL) AND \(Self.subtreeCondition)
                """, arguments: Self.subtreeArguments(root)).map { FilePath($0) }
        }
    }
}

/// The UUID index during a first index: its keys are random, so every commit of the scan rewrote
/// most of its pages (two thirds of the extra writes of reading headers: 42 of 54 MB of WAL for the
/// benchmark tree). Into an empty table, it is cheaper built once at the end.
extension Catalogue {
    static let uuidIndexSQL = "CREATE INDEX IF NOT EXISTS binaries_by_uuid ON binaries(uuid_key) WHERE uuid_key IS NOT NULL"

    /// Runs `body` (a scan's writes) without the UUID index when no slice is catalogued yet, and
    /// builds it afterwards, also when `body` throws. Lookups meanwhile read the small table whole;
    /// a process killed in between gets the index back when the catalogue is next opened to write.
    public func buildingUUIDIndexAfterwards<T>(_ body: () throws -> T) throws -> T {
        let empty = try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM binaries LIMIT 1)") == 0 }
        guard empty else { return try body() }
        try write { db in try db.execute(sql: "DROP INDEX IF EXISTS binaries_by_uuid") }
        defer { try? write { db in try db.execute(sql: Self.uuidIndexSQL) } }
        return try body()
    }
}
