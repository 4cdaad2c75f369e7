package import ArgumentParser
package import BundleModel
package import Catalogue

/// `--database URL [--host NAME]`: ask the PostgreSQL database hosts publish to instead of the
/// local catalogue (`query`, `open-with`). The asking is `RemoteCatalogue`'s.
package struct DatabaseOptions: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp(
        "Ask this PostgreSQL database, which hosts publish to, instead of the local catalogue.",
        discussion: "A libpq URI or key=value string; PG* variables, PGSERVICE and ~/.pgpass apply.", valueName: "url"))
    package var database: String?

    @Option(help: ArgumentHelp("With --database: only this host's bundles.", valueName: "name"))
    package var host: String?

    package func validate() throws {
        if host != nil && database == nil { throw ValidationError("--host narrows --database; give --database too") }
        if let database, !RemoteCatalogue.looksValid(database) {
            throw ValidationError("--database: not a PostgreSQL connection string (postgresql://… or key=value words)")
        }
    }
}

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
