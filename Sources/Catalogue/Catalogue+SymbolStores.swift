public import BundleModel
import GRDB
public import SystemCalls

/// What the view's symbol stores (`.bundlefs/symbols`, SPEC.md "Symbol stores for the tools people
/// already run") list: never every UUID per listing. A layout's top level comes from one pass of
/// the UUID index per catalogue update; a directory below it from a range of that index.
extension Catalogue {
    /// The slices whose UUID keys start with `prefix` (lower-case hex), in bundles at or under
    /// `root` and not in archives, by key, dSYMs first.
    public func symbolMatchesByKey(prefix: String, under root: FilePath) throws -> [String: [DebugSymbols.Match]] {
        try symbolMatchesByKey(.prefix(prefix), under: root)
    }

    /// One key for each distinct first four hex digits and format of the UUIDs under `root` (not
    /// in archives): the smallest, which names the top-level directory of any layout that groups
    /// by fewer digits.
    public func symbolKeyGroups(under root: FilePath) throws -> [(key: String, format: BinarySlice.Format)] {
        try read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT min(x.uuid_key), x.format FROM binaries x JOIN bundles b ON b.id = x.bundle_id
                WHERE x.uuid_key IS NOT NULL AND b.archive IS NULL AND \(Self.subtree("b.path"))
                GROUP BY substr(x.uuid_key, 1, 4), x.format
                """, arguments: Self.subtreeArguments(root))
            var groups: [(key: String, format: BinarySlice.Format)] = []
            while let row = try rows.next() {
                guard let key = row[0] as String?, let format = BinarySlice.Format(rawValue: row[1]) else { continue }
                groups.append((key, format))
            }
            return groups
        }
    }
}
