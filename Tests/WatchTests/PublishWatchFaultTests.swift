import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// PostgreSQL that answers but will not write (issue 24): the publisher backs off and says so once.
extension PublishWatchTests {
    /// The database's tablespace on a small tmpfs that fills up: a real ENOSPC, as a full disk on a
    /// database server gives it. Reads and connections still work, so the publisher's checks
    /// succeed and only its writes fail (a read-only database fails the connection's migration
    /// instead, a path that never reset the backoff). Counted from both sides while it lasts, the
    /// failed statements in PostgreSQL's log and the daemon's log lines stay within what a backoff
    /// doubling from 0.25 s to 8 s allows; with space again, it converges.
    @Test func backsOffWhileTheTablespaceIsFull() throws {
        let server = try PostgresServer()
        // In the cluster's directory: the tablespace must be reachable by the server's user.
        var disk: TmpfsMount? = try TmpfsMount(at: server.directory + "/tablespace", size: "32m")
        defer {
            disk = nil
            withExtendedLifetime(server) {}
        }
        chown(disk!.path, 65534, 65534)
        try server.psql("CREATE TABLESPACE small LOCATION '\(disk!.path)'")
        try server.psql("CREATE DATABASE published TABLESPACE small")
        let url = "postgresql:///published?host=\(server.directory)&user=postgres"

        let host = PublishingHost("full")
        for index in 0..<3 { host.tree.macApp("Apps/App\(index).app", identifier: "com.example.app\(index)") }
        let watcher = try host.start(publishingTo: url)
        try host.converge(to: url, "before the disk filled")

        let filler = disk!.fill()
        let linesBefore = watcher.log.split(separator: "\n").count
        // Far more than the free space left in the tables' last pages: every batch must extend a file.
        for index in 0..<40 {
            let padding = (0..<60).map { _ in UUID().uuidString }.joined()
            host.tree.macApp("Apps/More\(index).app", identifier: "com.example.more\(index)", info: ["Padding": .string(padding)])
        }
        try waitForConvergence(catalogue: host.catalogue, root: host.tree.root, timeout: 30, "with the tablespace full")
        // Every statement PostgreSQL refuses is logged with its text; only the publisher sends any here.
        func failedStatements() -> Int { server.serverLog.components(separatedBy: "] STATEMENT:  ").count - 1 }
        do {
            try poll(timeout: 30, "the first write to fail") { server.serverLog.contains("No space left on device") && failedStatements() > 0 }
        } catch {
            throw WatcherFailure("\(error)\nserver:\n\(server.serverLog.suffix(3000))\nwatcher:\n\(watcher.log)\navailable \(disk!.available)")
        }
        // Five of the publisher's attempts, each refused: backoff, not a spin, shows as the time
        // between them, each at least the backoff (0.25 s, doubling), which only a busy machine
        // lengthens; and one log line for them all.
        try poll(timeout: 60, "five failed attempts: \(failedStatements())") { failedStatements() >= 5 }
        let gaps = Self.gaps(between: server.serverLog, linesContaining: "] STATEMENT:  ")
        #expect(gaps.count >= 4, "the failed statements' times, from the log's prefix: \(gaps)")
        for (index, gap) in gaps.prefix(4).enumerated() {
            let backoff = 0.25 * Double(1 << index)
            #expect(gap >= backoff * 0.9, "attempt \(index + 2) came \(gap) s after the one before, under its backoff of \(backoff) s: \(gaps)")
        }
        let lines = watcher.log.split(separator: "\n").dropFirst(linesBefore)
        #expect(lines.count == 1, "one log line for the failure, not one per attempt: \(lines.count) lines:\n\(lines.joined(separator: "\n"))")
        #expect(lines.first?.contains("No space left on device") == true, "\(lines)")
        let publishing = try host.publishing()
        #expect(publishing?["state"] == .string("waiting"), "\(String(describing: publishing))")
        #expect(publishing?["lastError"]?.stringValue?.contains("No space left on device") == true)
        #expect(publishing?["lastError"]?.stringValue?.contains("\n") == false)

        #expect(unlink(filler) == 0)
        try host.converge(to: url, "after space came back")
        let after = watcher.log.split(separator: "\n").dropFirst(linesBefore)
        #expect(after.contains { $0.contains("again") }, "the recovery is said: \(after.joined(separator: "\n"))")
        try poll(timeout: 30, "the publisher to say it is current") { try host.publishing()?["state"] == .string("current") }
        #expect(try host.watcher!.stop() == 0)
    }

    /// Seconds between successive lines of PostgreSQL's log that contain `marker`, by the
    /// timestamps its default prefix starts them with (`2026-11-27 18:20:01.123 UTC [pid] `).
    static func gaps(between log: String, linesContaining marker: String) -> [Double] {
        let times = log.split(separator: "\n").filter { $0.contains(marker) }.compactMap { line -> Double? in
            let clock = line.split(separator: " ").dropFirst().first?.split(separator: ":") ?? []
            guard clock.count == 3, let hours = Double(clock[0]), let minutes = Double(clock[1]), let seconds = Double(clock[2]) else { return nil }
            return hours * 3600 + minutes * 60 + seconds
        }
        // Across midnight, a day later.
        return zip(times, times.dropFirst()).map { earlier, later in later >= earlier ? later - earlier : later + 86_400 - earlier }
    }
}
