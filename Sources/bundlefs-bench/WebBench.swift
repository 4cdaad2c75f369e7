import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// Issue 40's figures for `serve-web` at 50,000 bundles (the benchmark tree's layout: localized
/// display names, icons): a search's server time p50/p99 (words, globs), a bundle page, icons
/// per second warm, the first page's bytes. Server times are the server's own, from its debug
/// log's request lines, so curl's start is not counted; each kind of request goes over one
/// keep-alive connection of one curl process.
enum WebBench {
    static let searches = 100

    /// - Parameter fleet: also the `--database` figures (`--skip-web-fleet` leaves them out).
    static func run(binary: String, output: String, bundles: Int, fleet withFleet: Bool, report: inout Report) throws {
        let root = Paths.join(output, "web-tree")
        let tree = BenchmarkTree(root: root, bundles: bundles)
        if !tree.isComplete {
            progress("generating \(bundles) bundles in \(root) ...")
            tree.generate()
        }
        let catalogue = Paths.join(output, "web.sqlite")
        if !FileManager.default.fileExists(atPath: catalogue) {
            progress("indexing \(root) ...")
            _ = Timing.run(binary, ["index", root], environment: ["BUNDLEFS_CATALOGUE": catalogue])
        }
        let log = Paths.join(output, "serve-web.log")
        let server = try SymbolServerProcess(catalogue: catalogue, logFile: log, binary: binary, command: "serve-web")
        defer { _ = try? server.stop() }

        var generator = SeededGenerator(seed: 40)
        func randomIndex() -> Int { Int.random(in: 0..<bundles, using: &generator) }
        // A word (a display name's number, "App 4711" in English), as a reader types it.
        let words = (0..<searches).map { _ in "/?q=app%20\(randomIndex())" }
        let globs = (0..<searches).map { _ in "/?q=com.example.bench.app\(randomIndex())*" }
        let common = Array(repeating: "/?q=app", count: 20)
        let pages = (0..<searches).map { _ in
            let index = randomIndex() / 10 * 10 // a macOS app (index % 10 == 0)
            return "/bundle?path=" + percentEncoded(root + "/Group\(index / 100)/App\(index).app")
        }
        let icons = (0..<100).map { index in "/icons/32.png?path=" + percentEncoded(root + "/Group\(index)/App\(index * 100).app") }

        for (label, targets, goal) in [("search by a word (\"app N\")", words, "p50 < 20 ms, p99 < 50 ms"),
                                       ("search by identifier glob", globs, "p50 < 20 ms, p99 < 50 ms"),
                                       ("search by a word in every bundle (\"app\", 200 listed)", common, ""),
                                       ("bundle page", pages, "< 20 ms")] {
            let times = try serverTimes(server: server, log: log, targets: targets, root: root, output: output)
            report.add("serve-web at \(bundles): \(label)", value: String(format: "p50 %.1f ms, p99 %.1f ms (%d requests)",
                       Timing.percentile(times, 0.5), Timing.percentile(times, 0.99), times.count), goal: goal)
        }
        _ = try serverTimes(server: server, log: log, targets: icons, root: root, output: output) // converted once, cached
        let repeated = Array(repeating: icons, count: 10).flatMap { $0 }
        let seconds = try Timing.seconds { _ = try fetch(repeated, server: server, root: root, output: output) }
        report.add("serve-web: icons warm (32 px PNG)", value: String(format: "%.0f icons/s (%d over one connection)", Double(repeated.count) / seconds, repeated.count),
                   goal: "")
        let first = Paths.join(output, "web-first-page.html")
        _ = Timing.run("/usr/bin/curl", ["-s", "-o", first, server.url + "/"])
        let bytes = (try? FileStatus.of(FilePath(first)))?.size ?? 0
        report.add("serve-web: first page", value: "\(bytes) bytes", goal: "< 100 KB")
        try server.stop()
        guard withFleet else { return }
        try fleet(binary: binary, catalogue: catalogue, output: output, bundles: bundles, words: words, globs: globs, report: &report)
    }

    static let hosts = 50
    static let rowsPerHost = 20_000

    /// `serve-web --database` over a million rows from 50 hosts in a PostgreSQL the bench starts:
    /// the catalogue published once, then copied in SQL to 50 hosts of 20,000 bundles each (a
    /// window of the 50,000, so hosts share most applications, as a fleet does), then the same
    /// searches, timed by the server. The server has no local catalogue.
    ///
    /// `BUNDLEFS_BENCH_FLEET_DATABASE=URL` reads a database made so before instead (a bench's that was
    /// kept, or made by hand with the same SQL), so that two builds are measured on the same rows.
    static func fleet(binary: String, catalogue: String, output: String, bundles: Int, words: [String], globs: [String], report: inout Report) throws {
        let url: String
        var database: PostgresServer?
        if let given = ProcessInfo.processInfo.environment["BUNDLEFS_BENCH_FLEET_DATABASE"] {
            url = given
            report.notes.append("serve-web --database: the rows already in \(given)")
        } else {
            let server = try PostgresServer()
            database = server
            try fill(server, binary: binary, catalogue: catalogue, bundles: bundles, report: &report)
            url = server.url
        }
        let rows = (try? Subprocess.run("/usr/bin/psql", [url, "-XAtc", "SELECT count(*) FROM bundlefs_bundles"]).standardOutput)?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        let log = Paths.join(output, "serve-web-fleet.log")
        let server = try SymbolServerProcess(catalogue: Paths.join(output, "no-catalogue.sqlite"), logFile: log, binary: binary, command: "serve-web",
                                             arguments: ["--database", url])
        defer { _ = try? server.stop() }
        let root = Paths.join(output, "web-tree")
        for (label, targets, goal) in [("search by a word (\"app N\")", words, "p50 < 20 ms, p99 < 50 ms"),
                                       ("search by identifier glob", globs, "p50 < 20 ms, p99 < 50 ms"),
                                       ("search by a word in every bundle (\"app\", 200 listed)", Array(repeating: "/?q=app", count: 5), "")] {
            let times = try serverTimes(server: server, log: log, targets: targets, root: root, output: output)
            report.add("serve-web --database, \(rows) rows of \(hosts) hosts: \(label)",
                       value: String(format: "p50 %.1f ms, p99 %.1f ms (%d requests, load %@)", Timing.percentile(times, 0.5),
                                     Timing.percentile(times, 0.99), times.count, loadAverage()),
                       goal: goal)
        }
        withExtendedLifetime(database) {}
    }

    /// The catalogue published once as host `seed`, then copied in SQL to `hosts` hosts of `rowsPerHost`.
    static func fill(_ database: PostgresServer, binary: String, catalogue: String, bundles: Int, report: inout Report) throws {
        progress("publishing \(bundles) bundles and copying them to \(hosts) hosts of \(rowsPerHost) ...")
        _ = Timing.run(binary, ["publish", database.url, "--host", "seed"], environment: ["BUNDLEFS_CATALOGUE": catalogue])
        let copied = try Timing.seconds {
            try database.psql("""
                INSERT INTO bundlefs_hosts SELECT 'mac-' || n, catalogue, sent_through, \(rowsPerHost), whole_at, updated_at, rows_version
                    FROM bundlefs_hosts, generate_series(1, \(hosts)) n WHERE host = 'seed';
                INSERT INTO bundlefs_bundles (host, path, path_text, identifier, identifier_key, kind, name, version, short_version, in_archive,
                        error_count, record, names)
                    SELECT 'mac-' || n, path, path_text, identifier, identifier_key, kind, name, version, short_version, in_archive, error_count, record, names
                    FROM (SELECT *, row_number() OVER (ORDER BY path) - 1 AS i FROM bundlefs_bundles WHERE host = 'seed') b, generate_series(1, \(hosts)) n
                    WHERE (b.i + n * \(bundles / hosts)) % \(bundles) < \(rowsPerHost);
                INSERT INTO bundlefs_name_words (host, path, word)
                    SELECT b.host, w.path, w.word FROM bundlefs_bundles b JOIN bundlefs_name_words w ON w.host = 'seed' AND w.path = b.path
                    WHERE b.host <> 'seed';
                DELETE FROM bundlefs_hosts WHERE host = 'seed';
                ANALYZE;
                """, timeout: 3600)
        }
        let rows = try database.psql("SELECT count(*) FROM bundlefs_bundles")
        report.notes.append(String(format: "serve-web --database: %@ rows from %d hosts copied in SQL in %.0f s (with their names' words, indexes kept as they went in)",
                                   rows, hosts, copied))
    }

    /// Fetches each target over one connection; the server's time for each, from its log.
    static func serverTimes(server: SymbolServerProcess, log: String, targets: [String], root: String, output: String) throws -> [Double] {
        let before = server.log.utf8.count
        try fetch(targets, server: server, root: root, output: output)
        var times: [Double] = []
        try poll(timeout: 30, "serve-web to log \(targets.count) requests") {
            let lines = String(server.log.utf8.dropFirst(before)) ?? ""
            times = lines.split(separator: "\n").compactMap { line in
                guard let match = line.firstMatch(of: #/ GET \S+ \d{3} \d+ bytes ([0-9.]+) ms/#) else { return nil }
                return Double(match.1)
            }
            return times.count >= targets.count
        }
        return times
    }

    @discardableResult
    static func fetch(_ targets: [String], server: SymbolServerProcess, root: String, output: String) throws -> Int32 {
        let config = Paths.join(output, "web-requests.curl")
        try targets.map { "url = \"\(server.url)\($0)\"\noutput = \"/dev/null\"\n" }.joined().write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-g", "--config", config]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A catalogue path as a query's value.
    static func percentEncoded(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
    }
}
