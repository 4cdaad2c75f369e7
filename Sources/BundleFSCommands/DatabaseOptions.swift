import BundleModel
import Catalogue
import CatalogueCommands
import Publishing


/// PostgreSQL for `--database` (libpq, through Publishing): installed into `RemoteCatalogue` when
/// the complete binary starts, and `open-with`'s own question.
extension DatabaseOptions {
    static func install() {
        RemoteCatalogue.looksValid = PostgresURL.looksValid
        RemoteCatalogue.bundles = { query, database, host in
            var options = DatabaseOptions()
            options.host = host
            return try options.bundles(matching: query, database: database).map { ($0.host, $0.record) }
        }
    }

    /// The bundles matching `query` in the database (`--host`'s, or every host's), its errors as
    /// one line without any password.
    func bundles(matching query: BundleQuery, database: String) throws -> [PublishedBundle] {
        try asking(database) { try $0.bundles(matching: query, host: host) }
    }

    /// `open-with`'s answer from the database's tables of claims and type tags.
    func handlers(of question: HandlerRanking.Question, role: LaunchClaim.Role?, all: Bool, database: String) throws -> PublishedHandlers {
        try asking(database) { try $0.handlers(of: question, host: host, role: role, all: all) }
    }

    private func asking<T>(_ database: String, _ body: (PublishedCatalogue) throws -> T) throws -> T {
        do {
            return try body(PublishedCatalogue(readingFrom: database))
        } catch {
            throw UserError("\(PostgresURL.redacted(database)): \(error)")
        }
    }
}
