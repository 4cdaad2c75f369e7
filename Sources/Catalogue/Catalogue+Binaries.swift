public import BundleModel
import CatalogueReading
import GRDB
public import SystemCalls

/// Lookups by executable UUID (rule 25), for `symbols` and the view's `by-uuid` directory.
extension Catalogue {
    /// The slices with this UUID (a key made by `BinarySlice.uuidKey`) in bundles at or under
    /// `under`, dSYMs first. Read from the slices' rows and their bundles' paths and kinds alone,
    /// never a whole record: `symbols` and every by-uuid lookup ask it.
    public func symbolMatches(uuidKey: String, under: FilePath? = nil) throws -> [DebugSymbols.Match] {
        try symbolMatchesByKey(.key(uuidKey), under: under)[uuidKey] ?? []
    }

    /// Every UUID's matches in bundles at or under `root`, by key: a by-uuid listing's, from one
    /// query.
    public func symbolMatchesByKey(under root: FilePath) throws -> [String: [DebugSymbols.Match]] {
        try symbolMatchesByKey(.all, under: root)
    }

    func symbolMatchesByKey(_ selection: CatalogueQueries.UUIDSelection, under: FilePath?) throws -> [String: [DebugSymbols.Match]] {
        try read { db in try CatalogueQueries.symbolMatchesByKey(db, selection, under: under) }
    }

}

/// Secondary indexes and derived rows during a first index. The UUID index's keys are random, so
/// every commit of the scan rewrote most of its pages (two thirds of the extra writes of reading
/// headers: 42 of 54 MB of WAL for the benchmark tree); the other indexes cost a B-tree insert per
/// row, and `bundle_names`' triggers a row and an FTS5 trigram insert per name. Into empty
/// tables, each is cheaper made once at the end: an index by one sort, the names by one
/// INSERT…SELECT and their trigram index by one 'rebuild' (Docs/benchmarks.md, "Where a first
/// index's time goes").
extension Catalogue {
    static let uuidIndexSQL = "CREATE INDEX IF NOT EXISTS binaries_by_uuid ON binaries(uuid_key) WHERE uuid_key IS NOT NULL"

    /// The indexes a first index builds afterwards, by name, each as its migration made it.
    static let deferredIndexes: [(name: String, sql: String)] = [
        ("binaries_by_uuid", uuidIndexSQL),
        ("type_tags_by_value", "CREATE INDEX IF NOT EXISTS type_tags_by_value ON type_tags(kind, value)"),
        ("type_tags_by_bundle", "CREATE INDEX IF NOT EXISTS type_tags_by_bundle ON type_tags(bundle_id)"),
        ("bundles_by_identifier", "CREATE INDEX IF NOT EXISTS bundles_by_identifier ON bundles(identifier COLLATE NOCASE)"),
        ("problems_by_bundle", "CREATE INDEX IF NOT EXISTS problems_by_bundle ON problems(bundle_id)"),
    ]

    /// Runs `body` (a scan's writes) without those indexes and triggers when nothing is catalogued
    /// yet, and makes them afterwards, also when `body` throws. Lookups meanwhile read the tables
    /// whole; a process killed in between gets them back when the catalogue is next opened to write.
    /// Launch Services' lists and `bundle_names` are the same: not mended as each bundle is
    /// written, but made whole at the end, once, in one pass over the rows.
    public func buildingIndexesAfterwards<T>(_ body: () throws -> T) throws -> T {
        let empty = try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM bundles LIMIT 1)") == 0 }
        guard empty else { return try body() }
        try write { db in
            for index in Self.deferredIndexes { try db.execute(sql: "DROP INDEX IF EXISTS \(index.name)") }
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(LaunchLists.insertTrigger)")
            try db.execute(sql: BundleNames.dropTriggersSQL)
        }
        defer { try? write { db in try Self.createMissingIndexes(db) } }
        return try body()
    }

    static func createMissingIndexes(_ db: Database) throws {
        for index in deferredIndexes { try db.execute(sql: index.sql) }
        if try !hasLaunchTrigger(db) {
            try LaunchLists.rebuild(db)
            try db.execute(sql: LaunchLists.insertTriggerSQL)
        }
        if try !hasBundleNamesTriggers(db) { try db.execute(sql: BundleNames.restoreSQL) }
    }

    static func hasLaunchTrigger(_ db: Database) throws -> Bool {
        try hasEvery("trigger", named: [LaunchLists.insertTrigger], db)
    }

    static func hasBundleNamesTriggers(_ db: Database) throws -> Bool {
        try hasEvery("trigger", named: BundleNames.triggers.map(\.name), db)
    }

    /// Whether the schema has every one of these (`type` 'index' or 'trigger').
    static func hasEvery(_ type: String, named names: [String], _ db: Database) throws -> Bool {
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = ? AND name IN (\(list))", arguments: [type]) == names.count
    }

    /// Whether one of them is missing (a first index was killed before making them).
    static func missesIndexes(_ db: Database) throws -> Bool {
        try !hasEvery("index", named: deferredIndexes.map(\.name), db) || !hasLaunchTrigger(db) || !hasBundleNamesTriggers(db)
    }
}
