import ArgumentParser
import CatalogueCommands
import Publishing
import Service

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

    /// What the daemon publishes, when asked to.
    var plan: Daemon.PublishPlan? { url.map { Daemon.PublishPlan(url: $0, host: host) } }
}
