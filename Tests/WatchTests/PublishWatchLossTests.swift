import Fixtures
import Foundation
import Testing
import TestSupport

/// A shared database that loses what it had (issue 37; SPEC.md "Faults"): the schema dropped, the
/// tables truncated, a host's rows deleted, an older dump restored. Two hosts publish to one
/// database; each notices within its backoff, the schema is made again, and each sends its host
/// whole, one with a change waiting (its batch finds the loss) and one idle (its check does).
extension PublishWatchTests {
    /// Checks every second and a backoff of at most one: the loss is noticed in seconds.
    static let quickChecks = ["BUNDLEFS_PUBLISH_CHECK_INTERVAL": "1", "BUNDLEFS_PUBLISH_MAX_BACKOFF": "1"]

    /// Two hosts of three applications each, publishing to `server` and converged.
    private func twoHosts(_ server: PostgresServer, _ label: String) throws -> (PublishingHost, PublishingHost) {
        let alpha = PublishingHost("alpha-\(label)"), beta = PublishingHost("beta-\(label)")
        for host in [alpha, beta] {
            for index in 0..<3 { host.tree.macApp("Apps/App\(index).app", identifier: "com.example.\(host.name).app\(index)") }
            try host.start(publishingTo: server.url, environment: Self.quickChecks)
        }
        for host in [alpha, beta] { try host.converge(to: server.url, "before the loss") }
        return (alpha, beta)
    }

    /// Both converge after the loss; each said it sent its host whole because of it. Prints the
    /// time from the loss to convergence (the figure in Docs/postgres.md).
    private func convergeAfterLoss(_ hosts: [PublishingHost], _ server: PostgresServer, since lost: Date, _ what: String) throws {
        for host in hosts { try host.converge(to: server.url, "after \(what)") }
        print("converged \(String(format: "%.2f", Date().timeIntervalSince(lost))) s after \(what)")
        for host in hosts {
            let log = host.watcher!.log
            #expect(log.contains("PostgreSQL lost what it had of host \(host.name)"), "\(host.name) says what it found:\n\(log)")
            #expect(try host.publishing()?["lastError"]?.stringValue?.contains("lost what it had") == true, "status says it")
        }
        #expect(try server.psql("SELECT max(version) FROM bundlefs_schema") == "5")
        for host in hosts {
            try poll(timeout: 30, "\(host.name)'s publisher to say it is current") { try host.publishing()?["state"] == .string("current") }
            // Its own row in bundlefs_publishers is written again, so a refusal can name it.
            #expect(try server.psql("SELECT pid FROM bundlefs_publishers WHERE host = '\(host.name)'") == "\(host.watcher!.pid)")
            #expect(try host.watcher!.stop() == 0)
        }
    }

    /// The issue's trial: `DROP SCHEMA public CASCADE; CREATE SCHEMA public;`, then a change on one
    /// host. Before, each publisher retried the same statement against a missing table forever.
    @Test func aDroppedSchemaIsCreatedAgainAndEachHostSentWhole() throws {
        let server = try PostgresServer()
        let (alpha, beta) = try twoHosts(server, "drop")
        try server.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        let lost = Date()
        alpha.tree.macApp("Apps/After.app", identifier: "com.example.after")
        try convergeAfterLoss([alpha, beta], server, since: lost, "the schema was dropped")
        #expect((alpha.watcher!.log + beta.watcher!.log).contains("created the bundlefs schema"))
    }

    /// Every bundlefs table truncated, `bundlefs_schema` too (a script emptying the database):
    /// the schema no longer says its version, so it is created again; a batch finds its host's row
    /// gone (before, it failed on the foreign key forever).
    @Test func truncatedTablesAreFilledAgain() throws {
        let server = try PostgresServer()
        let (alpha, beta) = try twoHosts(server, "truncate")
        let tables = try server.psql("SELECT string_agg(tablename, ', ') FROM pg_tables WHERE tablename LIKE 'bundlefs_%'")
        try server.psql("TRUNCATE \(tables) CASCADE")
        let lost = Date()
        alpha.tree.macApp("Apps/After.app", identifier: "com.example.after")
        try convergeAfterLoss([alpha, beta], server, since: lost, "the tables were truncated")
        #expect((alpha.watcher!.log + beta.watcher!.log).contains("created the bundlefs schema again"))
    }

    /// One host's row deleted (its bundles go with it), the other's bundles deleted; then changes
    /// on both that keep their counts. Before, the first host's batch failed on the foreign key
    /// forever.
    @Test func aHostsDeletedRowsAreSentWhole() throws {
        let server = try PostgresServer()
        let (alpha, beta) = try twoHosts(server, "delete")
        try server.psql("DELETE FROM bundlefs_hosts WHERE host = '\(alpha.name)'; DELETE FROM bundlefs_bundles WHERE host = '\(beta.name)'")
        let lost = Date()
        for host in [alpha, beta] { host.tree.macApp("Apps/App0.app", identifier: "com.example.\(host.name).edited") }
        try convergeAfterLoss([alpha, beta], server, since: lost, "the hosts' rows were deleted")
    }

    /// A dump taken, changes that keep every count published, then the dump restored: the rows
    /// are older than what each publisher was told was committed. One host's next change is a
    /// batch, the other is idle. Before, the batch landed on the old rows, raised `sent_through`
    /// past the loss and left the older change there for good.
    @Test func anOlderDumpRestoredIsReplacedWhole() throws {
        let server = try PostgresServer()
        let (alpha, beta) = try twoHosts(server, "restore")
        let dump = alpha.directory.appending("older.sql")
        try server.dump(to: dump)
        for host in [alpha, beta] { host.tree.macApp("Apps/App0.app", identifier: "com.example.\(host.name).edited") }
        for host in [alpha, beta] { try host.converge(to: server.url, "after the changes the dump lacks") }
        try server.restore(from: dump)
        let lost = Date()
        alpha.tree.macApp("Apps/App1.app", identifier: "com.example.\(alpha.name).edited1")
        try convergeAfterLoss([alpha, beta], server, since: lost, "an older dump was restored")
        for host in [alpha, beta] { #expect(host.watcher!.log.contains("the database lost changes it had"), "\(host.watcher!.log)") }
    }
}
