import Foundation
import SystemCalls
import Testing
import TestSupport

/// One publisher per host name (issue 24): two daemons given the same `--host` would each send
/// their catalogue whole every 5 s, replacing the other's rows forever.
extension PublishWatchTests {
    /// Two watchers of two trees, both `--host twin`: the second is refused and says so in
    /// `status` and once in its log, while its own catalogue stays current; PostgreSQL keeps the
    /// first's rows without a flap across the first's checks (counted in PostgreSQL's log of
    /// statements). Killed with SIGKILL, the first frees the host (its session ends), and the
    /// second takes it over at its next attempt.
    @Test func aSecondPublisherOfAHostIsRefusedUntilTheFirstStops() throws {
        let server = try PostgresServer()
        // Every statement in the server's log: the first's checks are counted there.
        try server.psql("ALTER SYSTEM SET log_statement = 'all'")
        try server.psql("SELECT pg_reload_conf()")
        let first = PublishingHost("twin"), second = PublishingHost("twin")
        first.tree.macApp("Apps/First.app", identifier: "com.example.first")
        second.tree.macApp("Apps/Second.app", identifier: "com.example.second")
        second.tree.macApp("Apps/Third.app", identifier: "com.example.third")
        // The first checks PostgreSQL's rows every second; the second retries at most 1 s apart.
        try first.start(publishingTo: server.url, environment: ["BUNDLEFS_PUBLISH_CHECK_INTERVAL": "1"])
        try first.converge(to: server.url, "the first alone")

        try second.start(publishingTo: server.url, environment: ["BUNDLEFS_PUBLISH_MAX_BACKOFF": "1"])
        try poll(timeout: 30, "the second publisher to be refused") { try second.publishing()?["state"] == .string("refused") }
        let firstPID = first.watcher!.pid
        let status = try second.bundlefs(["status"]).standardOutput
        #expect(status.contains("refused") && status.contains("host twin") && status.contains("pid \(firstPID)"), "\(status)")
        #expect(try second.publishing()?["lastError"]?.stringValue?.contains("pid \(firstPID) on ") == true)
        // The rest of the refused daemon goes on.
        second.tree.macApp("Apps/Later.app", identifier: "com.example.later")
        try waitForConvergence(catalogue: second.catalogue, root: second.tree.root, timeout: 30, "the refused daemon's catalogue")

        // Three of the first's checks (which once found the second's rows and sent its own whole
        // again: a whole send after one is done by the next), by the statement that counts the
        // host's rows, which nothing else sends alone.
        func checks() -> Int { server.serverLog.components(separatedBy: ": SELECT count(*) FROM bundlefs_bundles WHERE host = $1").count - 1 }
        let checksBefore = checks()
        var flaps: [String] = []
        try poll(timeout: 60, "three of the first's checks after \(checksBefore)") {
            if let difference = try first.difference(from: server.url) { flaps.append(difference) }
            return checks() >= checksBefore + 3
        }
        #expect(flaps.isEmpty, "PostgreSQL's rows of twin are not the first's \(flaps.count) times: \(flaps.first ?? "")")
        #expect(second.watcher!.log.components(separatedBy: "host twin is already published").count == 2,
                "the refusal logged once:\n\(second.watcher!.log)")
        #expect(first.watcher!.log.components(separatedBy: " whole to ").count == 2, "the first sent whole once, at its start:\n\(first.watcher!.log)")

        first.watcher!.signal(SIGKILL)
        try second.converge(to: server.url, "after the first was killed", timeout: 60)
        #expect(second.watcher!.log.contains("took host twin over"), "\(second.watcher!.log)")
        try poll(timeout: 30, "the second publisher to say it is current") { try second.publishing()?["state"] == .string("current") }
        #expect(try second.watcher!.stop() == 0)
    }
}
