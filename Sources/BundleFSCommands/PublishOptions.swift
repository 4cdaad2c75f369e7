import ArgumentParser
import Catalogue
import Logging
import Publishing

/// `--publish URL` and `--host NAME` of the daemons (`watch`, `mount`, `serve`).
struct PublishOptions: ParsableArguments {
    @Option(name: .customLong("publish"), help: ArgumentHelp(
        "Also keep a PostgreSQL database current with this catalogue (a libpq URI or key=value string).",
        discussion: "Passwords belong in ~/.pgpass or PGPASSFILE; see Docs/postgres.md.", valueName: "url"))
    var url: String?

    @Option(name: .customLong("host"), help: ArgumentHelp("The name this host's rows carry in PostgreSQL (default: the machine's host name).", valueName: "name"))
    var host: String?

    func validate() throws {
        if let url, !PostgresURL.looksValid(url) { throw ValidationError("--publish: not a PostgreSQL connection string (postgresql://… or key=value words)") }
        if let host, host.isEmpty { throw ValidationError("--host cannot be empty") }
    }

    /// Starts publishing when asked to; otherwise stops queueing changes for a publisher that is
    /// no longer configured, so the outbox does not grow forever.
    static func start(url: String?, host: String?, catalogue: Catalogue, logger: Logger) throws -> Publisher? {
        guard let url else {
            if (try? catalogue.publicationStatus()) != nil { try catalogue.endPublishing() }
            return nil
        }
        let publisher = try Publisher(catalogue: catalogue, settings: Publisher.Settings(url: url, host: host ?? Publisher.Settings.defaultHost), logger: logger)
        publisher.start()
        return publisher
    }
}
