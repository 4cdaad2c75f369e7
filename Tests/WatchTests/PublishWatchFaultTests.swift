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
        let failedAtStart = failedStatements()
        // PostgreSQL's side: the postmaster with the backends it reaped (one per reconnection).
        let postmaster = Int32(((try? String(contentsOfFile: server.directory + "/data/postmaster.pid", encoding: .utf8)) ?? "")
            .split(separator: "\n").first ?? "") ?? 0
        let cpuAtStart = Self.cpuSeconds(watcher.pid), serverCPUAtStart = Self.cpuSeconds(postmaster, children: true)
        let window = 16.0
        Thread.sleep(forTimeInterval: window)
        let failed = failedStatements() - failedAtStart
        let cpu = String(format: "daemon %.2f s, PostgreSQL %.2f s", Self.cpuSeconds(watcher.pid) - cpuAtStart,
                         Self.cpuSeconds(postmaster, children: true) - serverCPUAtStart)
        let lines = watcher.log.split(separator: "\n").dropFirst(linesBefore)
        // Retries after 0.25, 0.75, 1.75, 3.75, 7.75 and 15.75 s: six in the window, one more for timing.
        #expect(failed <= 7, "\(failed) failed statements in \(window) s (CPU: \(cpu))")
        #expect(lines.count == 1, "one log line for the failure, not one per attempt: \(lines.count) lines (CPU: \(cpu)):\n\(lines.joined(separator: "\n"))")
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

    /// User and system CPU time of a process so far, with that of the children it waited for.
    static func cpuSeconds(_ pid: Int32, children: Bool = false) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15, cutime 16 and cstime 17 (proc(5)).
        let ticks = fields.dropFirst(11).prefix(children ? 4 : 2).compactMap { Double($0) }.reduce(0, +)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
