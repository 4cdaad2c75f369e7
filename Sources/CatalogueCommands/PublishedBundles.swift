package import BundleModel
package import CatalogueReading

/// Where `query --database` asks: the PostgreSQL database hosts publish to. Only the complete
/// binary links libpq, and its `query` hands one to `QueryRequest.run`; the query-only
/// `bundlefs` never reads `--database` (`DirectArguments` leaves it to the complete binary).
package protocol PublishedBundles {
    /// The bundles matching a query in the database (every host's, or `host`'s), each with its host.
    func bundles(matching query: BundleQuery, database: String, host: String?) throws -> [(host: String?, record: BundleRecord)]
}
