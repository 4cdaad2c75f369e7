import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// One simulated host: a tree, its catalogue, and a watcher publishing it under a host name.
final class PublishingHost: @unchecked Sendable {
    let name: String
    let directory: TemporaryDirectory
    let tree: TreeWriter
    var catalogue: String { directory.appending("catalogue.sqlite") }
    var watcher: WatcherProcess?

    init(_ name: String) {
        self.name = name
        directory = TemporaryDirectory("publish-\(name)")
        tree = TreeWriter(root: directory.appending("tree"))
    }

    @discardableResult
    func start(publishingTo url: String?, environment: [String: String] = [:]) throws -> WatcherProcess {
        let watcher = try WatcherProcess(
            roots: [tree.root], catalogue: catalogue, logFile: directory.appending("watch-\(UInt32.random(in: 0...UInt32.max)).log"),
            environment: environment, arguments: url.map { ["--publish", $0, "--host", name, "--log-level", "info"] } ?? [])
        self.watcher = watcher
        try watcher.waitUntilWatching()
        return watcher
    }

    func bundlefs(_ arguments: [String]) throws -> ProcessResult { try Subprocess.bundlefs(arguments, catalogue: catalogue) }

    /// What `query --json` says locally, and what PostgreSQL says for this host (without `host`).
    func difference(from url: String) throws -> String? {
        let local = try bundlefs(["query", "--json"])
        let remote = try bundlefs(["query", "--json", "--database", url, "--host", name])
        // No match is status 1 with `[]`: an empty catalogue is an answer too.
        guard local.status == 0 || local.standardError.contains("no bundle matches") else { return "local query: \(local)" }
        guard remote.status == 0 || remote.standardError.contains("no bundle matches") else { return "database query: \(remote.standardError)" }
        let localObjects = try JSONValue.parse(local.standardOutput).arrayValue ?? []
        let remoteObjects = (try JSONValue.parse(remote.standardOutput).arrayValue ?? []).map { object -> JSONValue in
            guard case let .object(members) = object else { return object }
            return .object(members.filter { $0.0 != "host" })
        }
        if localObjects == remoteObjects { return nil }
        let localPaths = localObjects.compactMap { $0["path"]?.stringValue }, remotePaths = remoteObjects.compactMap { $0["path"]?.stringValue }
        return "local has \(localPaths.count) bundles, PostgreSQL \(remotePaths.count); only local: \(Set(localPaths).subtracting(remotePaths).sorted()); "
            + "only in PostgreSQL: \(Set(remotePaths).subtracting(localPaths).sorted())"
    }

    /// Polls until the catalogue equals a fresh index of the tree and PostgreSQL equals the catalogue.
    func converge(to url: String, _ context: String, timeout: Double = 60) throws {
        try waitForConvergence(catalogue: catalogue, root: tree.root, timeout: timeout, context)
        var last: String?
        do {
            try poll(timeout: timeout, "\(name)'s rows in PostgreSQL (\(context))") {
                // Equal with changes still queued is not converged: their batch may land after the
                // test's next step (a row deleted by hand comes back).
                guard try Catalogue(path: catalogue, mode: .readOnly).outboxBacklog().changes == 0 else { return false }
                last = try difference(from: url)
                return last == nil
            }
        } catch {
            throw WatcherFailure("\(error): \(last ?? "")\n\(watcher?.log ?? "")")
        }
    }

    /// Starts publishing and converges, then makes `changes` while the test holds a lock on the
    /// bundles table, and returns once the publisher's batch waits inside its transaction.
    func holdBatch(on server: PostgresServer, _ changes: () -> Void) throws -> PostgresServer.TableLock {
        try start(publishingTo: server.url)
        try converge(to: server.url, "before the batch")
        let lock = try server.lockTable("bundlefs_bundles")
        try poll(timeout: 30, "the test's lock on bundlefs_bundles") {
            try server.psql("SELECT count(*) FROM pg_locks WHERE relation = 'bundlefs_bundles'::regclass AND mode = 'ExclusiveLock' AND granted") == "1"
        }
        changes()
        try waitForConvergence(catalogue: catalogue, root: tree.root, timeout: 30, "the changes")
        try poll(timeout: 30, "the publisher's batch to wait inside its transaction") {
            try server.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM bundlefs_bundles%'") == "1"
        }
        return lock
    }

    func publishing() throws -> JSONValue? {
        let status = try bundlefs(["status", "--json"])
        return try JSONValue.parse(status.standardOutput)["publishing"]
    }
}

/// Publishing from the daemon (SPEC.md, "Many hosts, one catalogue"): PostgreSQL converges to
/// every host's catalogue through changes, outages, kills and rows lost there.
@Suite(.serialized) struct PublishWatchTests {
    /// Two hosts publish to one database; creates, renames, moves, edits and deletes on both.
    @Test func twoHostsConverge() throws {
        let server = try PostgresServer()
        let alpha = PublishingHost("alpha"), beta = PublishingHost("beta")
        alpha.tree.macApp("Apps/Chess.app", identifier: "com.example.chess")
        alpha.tree.macApp("Apps/Shared.app", identifier: "com.example.shared")
        beta.tree.macApp("Tools/Shared.app", identifier: "com.example.shared")
        try alpha.start(publishingTo: server.url)
        try beta.start(publishingTo: server.url)
        try alpha.converge(to: server.url, "alpha's first index")
        try beta.converge(to: server.url, "beta's first index")

        alpha.tree.macApp("Apps/New.app", identifier: "com.example.new")
        alpha.tree.rename("Apps", "Applications")
        alpha.tree.macApp("Applications/Chess.app", identifier: "com.example.chess2")
        beta.tree.macApp("Tools/\(resumeNFD)/Writer.app", identifier: "com.example.writer")
        beta.tree.macApp("Tools/\(resumeNFC)/Writer.app", identifier: "com.example.writer.nfc")
        beta.tree.remove("Tools/Shared.app")
        try alpha.converge(to: server.url, "alpha's changes")
        try beta.converge(to: server.url, "beta's changes")

        let shared = try JSONValue.parse(try alpha.bundlefs(["query", "com.example.*", "--json", "--database", server.url]).standardOutput)
        #expect(shared.arrayValue?.compactMap { $0["host"]?.stringValue }.sorted() == ["alpha", "alpha", "alpha", "beta", "beta"])
        try poll(timeout: 30, "alpha's publisher to say it is current") {
            try alpha.publishing()?["state"] == .string("current") && alpha.publishing()?["waiting"] == .integer(0)
        }
        #expect(try alpha.watcher!.stop() == 0)
        #expect(try alpha.publishing()?["state"] == .string("stopped"))
        #expect(try beta.watcher!.stop() == 0)
    }

    /// PostgreSQL away while both kinds of change happen, for more of the publisher's attempts
    /// than its backoff takes to reach its ceiling (counted: the test holds a socket where
    /// PostgreSQL's was, which closes each connection): the publisher waits with backoff, says so
    /// in `status` without the password, and converges once it is back.
    @Test func survivesAnOutageLongerThanItsBackoff() throws {
        let server = try PostgresServer()
        let host = PublishingHost("outage")
        let secret = "s3cr3t-never-shown"
        let url = server.url + "&password=\(secret)"
        host.tree.macApp("Apps/Keep.app", identifier: "com.example.keep")
        host.tree.macApp("Apps/Gone.app", identifier: "com.example.gone")
        // A ceiling of 1 s: 0.25, 0.5, then 1 s between attempts.
        try host.start(publishingTo: url, environment: ["BUNDLEFS_PUBLISH_MAX_BACKOFF": "1"])
        try host.converge(to: server.url, "before the outage")

        try server.stop()
        // Changes that keep the count: only the outbox can carry them.
        host.tree.macApp("Apps/During.app", identifier: "com.example.during")
        host.tree.remove("Apps/Gone.app")
        host.tree.macApp("Apps/Keep.app", identifier: "com.example.kept")
        try waitForConvergence(catalogue: host.catalogue, root: host.tree.root, timeout: 30, "during the outage")
        try poll(timeout: 30, "the publisher to say PostgreSQL is away") {
            guard let publishing = try host.publishing() else { return false }
            return publishing["state"] == .string("waiting") && publishing["lastError"]?.stringValue != nil
                && publishing["waiting"] != .integer(0)
        }
        let status = try host.bundlefs(["status"]).standardOutput
        #expect(status.contains("publishing:") && status.contains("waiting") && status.contains("last error"), "\(status)")
        // More changes while it retries; then five more of its attempts, past the ceiling.
        host.tree.macApp("Apps/Later.app", identifier: "com.example.later")
        host.tree.remove("Apps/During.app")
        do {
            let refusing = try RefusingSocket(path: server.socketPath)
            try poll(timeout: 60, "five attempts to connect while PostgreSQL is away") { refusing.closePending() >= 5 }
        }
        try server.start()
        try host.converge(to: server.url, "after the outage")

        let everything = status + (try host.bundlefs(["status", "--json"]).standardOutput) + host.watcher!.log
            + [host.catalogue, host.catalogue + "-wal"].map { String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: $0))) ?? Data(), as: UTF8.self) }.joined()
        #expect(!everything.contains(secret))
        #expect(host.watcher!.log.contains("publishing to") && host.watcher!.log.contains("again"))
        #expect(host.watcher!.log.components(separatedBy: " whole to ").count == 2, "one whole send, the first: \(host.watcher!.log)")
        #expect(try host.watcher!.stop() == 0)
    }

    /// The publisher killed with SIGKILL while its batch waits inside a PostgreSQL transaction:
    /// nothing of the batch lands, and after a restart everything does.
    @Test func convergesAfterSIGKILLMidBatch() throws {
        let server = try PostgresServer()
        let host = PublishingHost("killed")
        host.tree.macApp("Apps/First.app", identifier: "com.example.first")
        host.tree.macApp("Apps/Second.app", identifier: "com.example.second")
        // Changes that keep the count: only the outbox can carry them.
        let lock = try host.holdBatch(on: server) {
            host.tree.macApp("Apps/New0.app", identifier: "com.example.new0")
            host.tree.remove("Apps/First.app")
            host.tree.macApp("Apps/Second.app", identifier: "com.example.new1")
        }
        host.watcher!.signal(SIGKILL)
        try poll(timeout: 30, "the killed watcher to exit") { !host.watcher!.process.isRunning }
        try lock.release()
        try poll(timeout: 30, "PostgreSQL to end the killed publisher's session") {
            try server.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'DELETE FROM bundlefs_bundles%'") == "0"
        }
        #expect(try server.psql("SELECT count(*) FROM bundlefs_bundles WHERE identifier LIKE 'com.example.new%'") == "0")
        #expect(try server.psql("SELECT count(*) FROM bundlefs_bundles WHERE identifier = 'com.example.first'") == "1")

        let restarted = try host.start(publishingTo: server.url)
        try host.converge(to: server.url, "after the restart")
        #expect(!restarted.log.contains(" whole to "), "the outbox, not a whole send: \(restarted.log)")
        #expect(try host.watcher!.stop() == 0)
    }

    /// SIGTERM while a batch waits on PostgreSQL: the daemon still stops, giving up on the
    /// publisher's transaction (it says so) rather than waiting for it, and the batch, still in
    /// the outbox, is sent on the next start.
    @Test func stopsPromptlyWhileABatchWaits() throws {
        let server = try PostgresServer()
        let host = PublishingHost("stopping")
        host.tree.macApp("Apps/First.app", identifier: "com.example.first")
        let lock = try host.holdBatch(on: server) { host.tree.macApp("Apps/Second.app", identifier: "com.example.second") }
        #expect(try host.watcher!.stop(SIGTERM, timeout: 60) == 0)
        #expect(host.watcher!.log.contains("did not finish its transaction"))
        try lock.release()
        #expect(try Catalogue(path: host.catalogue, mode: .readOnly).outboxBacklog().changes > 0)
        try host.start(publishingTo: server.url)
        try host.converge(to: server.url, "after the restart")
        #expect(try host.watcher!.stop() == 0)
    }

    /// Rows of a host deleted in PostgreSQL by hand (some, then the host itself): sent whole.
    /// Restarted without publishing, the daemon stops queueing changes.
    @Test func rowsLostInPostgreSQLAreSentWhole() throws {
        let server = try PostgresServer()
        let host = PublishingHost("lost")
        for index in 0..<3 { host.tree.macApp("Apps/App\(index).app", identifier: "com.example.app\(index)") }
        try host.start(publishingTo: server.url)
        try host.converge(to: server.url, "first")

        try server.psql("DELETE FROM bundlefs_bundles WHERE host = 'lost' AND identifier = 'com.example.app1'")
        #expect(try host.difference(from: server.url) != nil)
        try host.converge(to: server.url, "a row deleted by hand")
        try server.psql("DELETE FROM bundlefs_hosts WHERE host = 'lost'")
        try host.converge(to: server.url, "the host deleted by hand")
        // Found idle (counted against the outbox) or by the next batch (counted against the host's row).
        #expect(host.watcher!.log.contains("the database has 2 of its 3 bundles") || host.watcher!.log.contains("the database has 2 rows of the 3 bundles it was sent"),
                "\(host.watcher!.log)")
        #expect(host.watcher!.log.contains("its row in bundlefs_hosts is gone"))

        #expect(try host.watcher!.stop() == 0)
        try host.start(publishingTo: nil)
        #expect(try host.publishing() == JSONValue.null)
        host.tree.macApp("Apps/Unpublished.app", identifier: "com.example.unpublished")
        try waitForConvergence(catalogue: host.catalogue, root: host.tree.root, timeout: 30, "unpublished")
        let catalogue = try Catalogue(path: host.catalogue, mode: .readOnly)
        #expect(try catalogue.outboxBacklog().changes == 0)
        #expect(try host.watcher!.stop() == 0)

        // Publishing again owes a whole send (the changes meanwhile were not queued), and still
        // owes it after a start that could not make it.
        host.tree.macApp("Apps/App0.app", identifier: "com.example.app0.edited")
        try server.stop()
        try host.start(publishingTo: server.url)
        try poll(timeout: 30, "the publisher to find PostgreSQL away") { try host.publishing()?["state"] == .string("waiting") }
        #expect(try host.watcher!.stop() == 0)
        try server.start()
        try host.start(publishingTo: server.url)
        try host.converge(to: server.url, "publishing again")
        #expect(try host.watcher!.stop() == 0)
    }
}
