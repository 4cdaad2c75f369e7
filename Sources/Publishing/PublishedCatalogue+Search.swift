import BundleModel
public import Catalogue
import Codecs

/// The queries of `bundlefs query --database` and `serve-web --database`: the published bundles
/// matching a `BundleQuery`, by host then path.
extension PublishedCatalogue {
    /// The bundles matching a query on every host (or one), by host then path: the order `query`
    /// lists one catalogue in.
    public func bundles(matching query: BundleQuery, host: String? = nil) throws -> [PublishedBundle] {
        try bundles(matching: query, host: host, limit: nil).bundles
    }

    /// The first `limit` of them (all without one), and how many match in all, counted up to
    /// `countingUpTo + 1` when given: a count past it says "more than", and costs no more.
    ///
    /// A page (a limit) starts from the rarest index range of the query when one is small (a word's,
    /// or an identifier glob's literal beginning): PostgreSQL, asked for the first rows by host and
    /// path, otherwise walks every bundle in that order testing each, which for a rare word among
    /// a million rows reads tens of thousands (issue 40).
    public func bundles(matching query: BundleQuery, host: String? = nil, limit: Int?, countingUpTo countLimit: Int? = nil) throws
        -> (bundles: [PublishedBundle], count: Int) {
        let search = try PublishedSearch(query: query, host: host, schemaVersion: schemaVersion)
        if let limit, let start = try smallestStart(of: search) {
            let statement = search.startingFrom(start, limit: limit, countingUpTo: countLimit)
            let rows = try connection.execute(statement.sql, statement.parameters).rows
            var bundles = try rows.map(Self.bundle(row:))
            guard bundles.count > limit else { return (bundles, bundles.count) }
            bundles.removeLast()
            return (bundles, Int(rows[0][2] ?? "") ?? bundles.count)
        }
        // One row past the limit says whether there are more, so a short answer needs no count.
        let rows = try connection.execute("SELECT b.host, b.record FROM bundlefs_bundles b \(search.whereClause()) ORDER BY b.host, b.path"
                                          + (limit.map { " LIMIT \($0 + 1)" } ?? ""), search.parameters)
        var bundles = try rows.rows.map(Self.bundle(row:))
        guard let limit, bundles.count > limit else { return (bundles, bundles.count) }
        bundles.removeLast()
        let counted = countLimit.map { "(SELECT 1 FROM bundlefs_bundles b \(search.whereClause()) LIMIT \($0 + 1)) b" }
            ?? "bundlefs_bundles b \(search.whereClause())"
        let count = try connection.execute("SELECT count(*) FROM \(counted)", search.parameters).scalar
        return (bundles, Int(count ?? "") ?? bundles.count)
    }

    /// The query's index range with the fewest rows, when it has fewer than `PublishedSearch.startLimit`:
    /// each is counted up to that in its index alone (a few thousand entries at most each).
    private func smallestStart(of search: PublishedSearch) throws -> PublishedSearch.Start? {
        guard !search.starts.isEmpty else { return nil }
        let counts = try connection.execute(search.startCountsSQL, search.starts.map(\.pattern)).rows.first ?? []
        let smallest = zip(search.starts, counts.map { Int($0 ?? "") ?? PublishedSearch.startLimit }).min { $0.1 < $1.1 }
        guard let smallest, smallest.1 < PublishedSearch.startLimit else { return nil }
        return smallest.0
    }

    private static func bundle(row: [String?]) throws -> PublishedBundle {
        guard let host = row[0], row[1] != nil else { throw PostgresError("a bundle row without its record") }
        return PublishedBundle(host: host, record: try RecordCoding.decode(try PublishedRows.bytes(ofBytea: row[1])))
    }
}
