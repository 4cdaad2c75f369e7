import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// `ls -l` of `.bundlefs/by-id` and `.bundlefs/by-uuid` against `ls -l` of a native directory with
/// as many subdirectories (SPEC.md "Performance": a listing costs about what a native one of as
/// many entries does), and how long a plain `stat` through the same view waits meanwhile (one slow
/// request must not stall the others).
enum ListingBench {
    static func run(view: MountedView, source: String, label: String, output: String, runs: Int, report: inout Report) throws {
        for directory in ["by-id", "by-uuid"] {
            let listed = view.path(".bundlefs/\(directory)")
            let count = try Descriptor.open(listed, flags: Descriptor.directoryNoFollow).listDirectory().count
            let native = try flatDirectory(entries: count, output: output)
            let workload = ViewBench.Workload(name: "ls -l", goal: "") { Timing.run("/bin/ls", ["-l", $0]) }
            var samples = PairedSamples()
            _ = workload.run(native)
            _ = workload.run(listed)
            for index in 0..<max(runs, 5) {
                if index % 2 == 0 { samples.native.append(workload.run(native)) }
                samples.view.append(workload.run(listed))
                if index % 2 == 1 { samples.native.append(workload.run(native)) }
            }
            report.add("view: `ls -l .bundlefs/\(directory)`, \(count.formatted()) entries (\(label))", seconds: samples.viewMedian,
                       against: "native dir", baselineSeconds: samples.nativeMedian, goal: "≈ 1x")
            report.notes.append("ls -l \(directory) (\(label)): \(PairedSamples.describe(samples.view)), native \(PairedSamples.describe(samples.native))")
        }
        report.notes.append("a lookup while `ls -l .bundlefs/by-uuid` runs after an update (\(label)): \(lookupsWhileListing(view, source: source))")
    }

    /// The slowest of the lookups of missing names (each a request to the daemon) made while
    /// another thread lists by-uuid right after an update (its first listing since, the slow one),
    /// against the listing's own time.
    static func lookupsWhileListing(_ view: MountedView, source: String) -> String {
        let listed = view.path(".bundlefs/by-uuid")
        // An update drops what the kernel kept of by-uuid; seen once the new name shows.
        let marker = "bench-update-\(getpid())"
        _ = FileManager.default.createFile(atPath: Paths.join(source, marker), contents: nil)
        defer { unlink(Paths.join(source, marker)) }
        let deadline = Timing.now() + 5
        while !FileManager.default.fileExists(atPath: view.path(marker)) && Timing.now() < deadline { usleep(10_000) }
        guard let measured = try? LookupsMeanwhile.measure(in: view, directory: ".", while: { _ = Timing.run("/bin/ls", ["-l", listed]) }) else {
            return "not measured (no thread to list with)"
        }
        return String(format: "%d lookups, the slowest %.1f ms, the listing %.3f s", measured.lookups, measured.slowestLookup * 1000, measured.slowSeconds)
    }

    /// `bench-out/flat-N`: N empty subdirectories, made once.
    static func flatDirectory(entries: Int, output: String) throws -> String {
        let path = Paths.join(output, "flat-\(entries)")
        let complete = Paths.join(path, ".complete")
        if FileManager.default.fileExists(atPath: complete) { return path }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for index in 0..<entries { mkdir(Paths.join(path, "com.example.entry\(index)"), 0o755) }
        _ = FileManager.default.createFile(atPath: complete, contents: nil)
        return path
    }
}
