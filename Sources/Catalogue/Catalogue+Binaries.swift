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

    /// Every UUID key of the bundles at or under `root`, sorted.
    public func uuidKeys(under root: FilePath) throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT x.uuid_key FROM binaries x JOIN bundles ON bundles.id = x.bundle_id
                WHERE x.uuid_key IS NOT NULL AND \(Self.subtreeCondition) ORDER BY 1
                """, arguments: Self.subtreeArguments(root))
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
