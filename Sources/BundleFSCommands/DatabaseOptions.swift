import ArgumentParser
import BundleModel
import Catalogue
import CatalogueCommands
import Publishing

/// PostgreSQL for `--database` (libpq, through Publishing): `query`'s bundles (`PostgresBundles`)
/// and `open-with`'s own question.
extension DatabaseOptions {
    /// `open-with`'s answer from the database's tables of claims and type tags.
    func handlers(of question: HandlerRanking.Question, role: LaunchClaim.Role?, all: Bool, database: String) throws -> PublishedHandlers {
        try Self.asking(database) { try $0.handlers(of: question, host: host, role: role, all: all) }
    }

    /// Asks the database; its errors as one line without any password.
    static func asking<T>(_ database: String, _ body: (PublishedCatalogue) throws -> T) throws -> T {
        do {
            return try body(PublishedCatalogue(readingFrom: database))
        } catch {
            throw UserError("\(PostgresURL.redacted(database)): \(error)")
        }
    }
}


/// `--database URL [--host NAME]`: ask the PostgreSQL database hosts publish to instead of the
/// local catalogue (`query`, `open-with`).
struct DatabaseOptions: ParsableArguments {

    @Option(name: .declared(.database), help: ArgumentHelp(
        "Ask this PostgreSQL database, which hosts publish to, instead of the local catalogue.",
        discussion: "A libpq URI or key=value string; PG* variables, PGSERVICE and ~/.pgpass apply.", valueName: "url"))
    var database: String?

    @Option(name: .declared(.host), help: ArgumentHelp("With --database: only this host's bundles.", valueName: "name"))
    var host: String?

    func validate() throws {
        if host != nil && database == nil { throw ValidationError("--host narrows --database; give --database too") }
        if let database, !PostgresURL.looksValid(database) {
            throw ValidationError("--database: not a PostgreSQL connection string (postgresql://… or key=value words)")
        }
    }
}

/// `query --database`'s answer, which the complete binary gives itself.
struct PostgresBundles: PublishedBundles {
    func bundles(matching query: BundleQuery, database: String, host: String?) throws -> [(host: String?, record: BundleRecord)] {
        try DatabaseOptions.asking(database) { try $0.bundles(matching: query, host: host) }.map { ($0.host, $0.record) }
    }
}
