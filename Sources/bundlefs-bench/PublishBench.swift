import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// Publishing to PostgreSQL (SPEC.md "Many hosts"), on a throw-away local cluster: the initial
/// publish of the benchmark catalogue against psql's `COPY` of the very rows it wrote, then 50
/// hosts (a million bundle rows) and lookups through `query --database`.
enum PublishBench {
    static let hosts = 50
    static let lookups = 100

    static func run(binary: String, catalogue: String, output: String, bundles: Int, runs: Int, report: inout Report) throws {
        let server = try PostgresServer()
        let environment = ["BUNDLEFS_CATALOGUE": catalogue]
        let publish = [binary, "publish", server.url, "--host", "host1"]
        _ = Timing.run(publish[0], Array(publish.dropFirst()), environment: environment)

        // The baseline: psql replacing the same host's rows with COPY of the same data (dumped
        // from what bundlefs wrote), in one transaction, as bundlefs does.
        let bundlesFile = Paths.join(output, "publish-bundles.copy"), binariesFile = Paths.join(output, "publish-binaries.copy")
        try server.psql("COPY (SELECT * FROM bundlefs_bundles WHERE host = 'host1') TO STDOUT", to: bundlesFile)
        try server.psql("COPY (SELECT * FROM bundlefs_binaries WHERE host = 'host1') TO STDOUT", to: binariesFile)
        let script = Paths.join(output, "publish-copy.sql")
        try """
            DELETE FROM bundlefs_bundles WHERE host = 'host1';
            \\copy bundlefs_bundles FROM '\(bundlesFile)'
            \\copy bundlefs_binaries FROM '\(binariesFile)'
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let copy = ["/usr/bin/psql", "-X", "-q", "-1", "-v", "ON_ERROR_STOP=1", "-d", server.url, "-f", script]
        var samples = PairedSamples()
        for _ in 0..<max(5, runs) {
            samples.native.append(Timing.run(copy[0], Array(copy.dropFirst())))
            samples.view.append(Timing.run(publish[0], Array(publish.dropFirst()), environment: environment))
        }
        let recordBytes = try server.psql("SELECT round(avg(length(record))) FROM bundlefs_bundles")
        report.add("publish \(bundles) bundles", seconds: samples.viewMedian, against: "psql COPY of the rows", baselineSeconds: samples.nativeMedian, goal: "(≤ 2x)")
        report.notes.append("publish: \(PairedSamples.describe(samples.view)); psql -1 with DELETE and \\copy of the same rows: \(PairedSamples.describe(samples.native)) (alternating runs; records average \(recordBytes) bytes)")

        // 49 more hosts, copied in SQL from the first (the rows a host's publish would write).
        try server.psql("""
            INSERT INTO bundlefs_hosts SELECT 'host' || n, catalogue, sent_through, bundles, whole_at, updated_at
                FROM bundlefs_hosts, generate_series(2, \(hosts)) n WHERE host = 'host1';
            INSERT INTO bundlefs_bundles SELECT 'host' || n, path, path_text, identifier, identifier_key, kind, name, version,
                short_version, in_archive, error_count, record FROM bundlefs_bundles, generate_series(2, \(hosts)) n WHERE host = 'host1';
            INSERT INTO bundlefs_binaries SELECT 'host' || n, path, slice, arch, uuid_key
                FROM bundlefs_binaries, generate_series(2, \(hosts)) n WHERE host = 'host1';
            ANALYZE;
            """, timeout: 1800)
        let rows = try server.psql("SELECT count(*) FROM bundlefs_bundles")

        var generator = SeededGenerator(seed: 16)
        let exact = (0..<lookups).map { _ in [BenchmarkTree.identifier(Int.random(in: 0..<bundles, using: &generator))] }
        // A prefix glob matching ten bundles on every host (`…app123?`: app1230 to app1239).
        let globs = (0..<lookups).map { _ in [BenchmarkTree.identifier(Int.random(in: 100..<max(101, bundles / 10), using: &generator)) + "?"] }
        for (name, queries, matches) in [("identifier", exact, hosts), ("glob", globs, hosts * 10)] {
            var remote: [Double] = [], local: [Double] = []
            for query in queries {
                remote.append(try spawned(binary, ["query", "--database", server.url] + query, environment: environment))
                local.append(try spawned(binary, ["query"] + query, environment: environment))
            }
            let remoteP99 = Timing.percentile(remote, 0.99), localP99 = Timing.percentile(local, 0.99)
            report.add("query --database by \(name), \(rows) rows", value: String(format: "%.0f /s, p50 %.1f ms, p99 %.1f ms (%d matches each; local query %.1f ms p50, %.1f ms p99)",
                       Double(queries.count) / remote.reduce(0, +), Timing.percentile(remote, 0.5) * 1000, remoteP99 * 1000, matches,
                       Timing.percentile(local, 0.5) * 1000, localP99 * 1000), goal: "(p99 < 100 ms)")
        }
        report.notes.append("query --database: \(lookups) lookups of each kind, each a `bundlefs` process (start, connect, query, decode, print to /dev/null), against \(hosts) hosts; `local query` is the same lookup on one host's SQLite catalogue, alternating")
    }

    /// One command's wall time, spawned and reaped directly: Foundation's `Process` adds tens of
    /// milliseconds of its own to a 20 ms command.
    static func spawned(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Double {
        var status: Int32 = 0
        let seconds = try Timing.seconds { status = try Spawn.runDetached(executable, arguments: arguments, environment: environment) }
        guard status == 0 else { throw WatcherFailure("\(executable) \(arguments.joined(separator: " ")) failed with status \(status)") }
        return seconds
    }
}
