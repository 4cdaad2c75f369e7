import ArgumentParser
import Catalogue
import CatalogueCommands
import Foundation
import Publishing
import SystemCalls

struct PublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Copy the local catalogue to a shared PostgreSQL database, whole, as one host's rows.",
        discussion: """
            The host's rows are replaced in one transaction. To keep the database current, run the \
            daemon with --publish (or `publish =` in the service configuration) instead; while one \
            publishes the same host there, this is refused. Connection settings follow libpq: URIs, \
            PGHOST and the other PG* variables, PGSERVICE, ~/.pgpass.
            """)

    @Argument(help: ArgumentHelp("The database: postgresql://[user@]host[:port]/dbname[?sslmode=...], or key=value words.", valueName: "url"))
    var url: String

    @Option(help: ArgumentHelp("The name the rows carry (default: the machine's host name).", valueName: "name"))
    var host: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if !PostgresURL.looksValid(url) { throw ValidationError("the database is not a PostgreSQL connection string (postgresql://… or key=value words)") }
        if let host, host.isEmpty { throw ValidationError("--host cannot be empty") }
    }

    func run() throws {
        let catalogue = try common.openCatalogue(.readWrite)
        let name = host ?? Publisher.Settings.defaultHost
        let destination = PostgresURL.redacted(url)
        let started = Clocks.monotonicSeconds()
        do {
            let published = try PublishedCatalogue(url: url)
            // A daemon publishing the host would overwrite this copy with its own, and the reverse.
            try published.claim(host: name)
            defer { published.release() }
            let sent = try published.sendWhole(host: name, from: catalogue, identity: catalogue.identity(), through: catalogue.outboxHead())
            print("published \(sent) bundle\(sent == 1 ? "" : "s") as host \(name) to \(destination) in \(String(format: "%.2f", Clocks.monotonicSeconds() - started)) s")
        } catch let error as PostgresError {
            throw UserError("\(destination): \(error.message)")
        } catch let error as HostTaken {
            throw UserError("\(destination): \(error); stop that one first, or publish under another --host")
        }
    }
}
