package import BundleModel
package import CatalogueReading

/// How commands of this module reach PostgreSQL (`--database`): through the complete binary,
/// which links libpq and sets these before it parses. The query-only `bundlefs` never asks: it
/// hands any command with `--database` to the complete binary (`QueryOnlyMain`).
package enum RemoteCatalogue {
    /// Whether a string can be a libpq connection string.
    nonisolated(unsafe) package static var looksValid: (String) -> Bool = { _ in true }
    /// The bundles matching a query in the database (every host's, or `host`'s).
    nonisolated(unsafe) package static var bundles: (BundleQuery, _ database: String, _ host: String?) throws -> [(host: String?, record: BundleRecord)] = { _, _, _ in
        throw UserError("--database: this bundlefs cannot reach PostgreSQL")
    }
}
