import ArgumentParser
import Catalogue
import Publishing

/// `--database URL [--host NAME]`: ask the PostgreSQL database hosts publish to instead of the
/// local catalogue (`query`, `open-with`).
struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Ask this PostgreSQL database, which hosts publish to, instead of the local catalogue.",
        discussion: "A libpq URI or key=value string; PG* variables, PGSERVICE and ~/.pgpass apply.", valueName: "url"))
    var database: String?

    @Option(help: ArgumentHelp("With --database: only this host's bundles.", valueName: "name"))
    var host: String?

    func validate() throws {
        if host != nil && database == nil { throw ValidationError("--host narrows --database; give --database too") }
        if let database, !PostgresURL.looksValid(database) {
            throw ValidationError("--database: not a PostgreSQL connection string (postgresql://… or key=value words)")
        }
    }

    /// The bundles matching `query` in the database (`--host`'s, or every host's), its errors as
    /// one line without any password.
    func bundles(matching query: BundleQuery, database: String) throws -> [PublishedBundle] {
        do {
            return try PublishedCatalogue(readingFrom: database).bundles(matching: query, host: host)
        } catch {
            throw UserError("\(PostgresURL.redacted(database)): \(error)")
        }
    }
}
