import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// `ls -l` of `.bundlefs/by-id` and `.bundlefs/by-uuid` against `ls -l` of a native directory with
/// as many subdirectories (SPEC.md "Performance": a listing costs about what a native one of as
/// many entries does), warm and first after an update to one bundle, and how long a plain `stat`
/// through the same view waits meanwhile (one slow request must not stall the others).
enum ListingBench {
    static func run(view: MountedView, source: String, label: String, output: String, runs: Int, report: inout Report) throws {
        let update = try BundleUpdate(view: view, source: source)
        defer { update.restore() }
        for directory in ["by-id", "by-uuid"] {
            let listed = view.path(".bundlefs/\(directory)")
            let count = try Descriptor.open(listed, flags: Descriptor.directoryNoFollow).listDirectory().count
            let native = try flatDirectory(entries: count, output: output)
            let workload = ViewBench.Workload(name: "ls -l", goal: "") { Timing.run("/bin/ls", ["-l", $0]) }
            // The first listing after an update to one bundle (the kernel dropped its cached listing),
            // against the native directory's after an entry was made and removed there.
            var first = PairedSamples()
            for index in 0..<max(runs, 5) {
                try update.next()
                let before = RequestCounter.read(view.mountPoint)
                first.view.append(workload.run(listed))
                for (kind, count) in RequestCounter.difference(RequestCounter.read(view.mountPoint), before) { first.requests[kind, default: 0] += count }
                let entry = Paths.join(native, "update-\(index)")
                mkdir(entry, 0o755)
                rmdir(entry)
                first.native.append(workload.run(native))
            }
            report.add("view: first `ls -l .bundlefs/\(directory)` after an update, \(count.formatted()) entries (\(label))", seconds: first.viewMedian,
                       against: "native dir", baselineSeconds: first.nativeMedian, goal: "≤ 1.2x")
            report.notes.append("first ls -l \(directory) after an update (\(label)): \(PairedSamples.describe(first.view)), native \(PairedSamples.describe(first.native)); "
                                + "requests per run: \(first.requestsPerRun(runs: first.view.count))")
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

/// An update to one bundle of the bench tree (App0's Info.plist gets a key of the run's number),
/// waited for until the kernel has been told: a plain file changed after it shows through the
/// view, and the view's notifier tells the kernel about updates in order. The original bytes are
/// put back at the end.
final class BundleUpdate {
    let view: MountedView
    let source: String
    let infoPath: String
    let original: Data
    let barrier: String
    var run = 0

    init(view: MountedView, source: String) throws {
        self.view = view
        self.source = source
        infoPath = Paths.join(source, "Group0/App0.app/Contents/Info.plist")
        original = try Data(contentsOf: URL(fileURLWithPath: infoPath))
        barrier = "bench-barrier-\(getpid())"
    }

    func next() throws {
        run += 1
        guard var info = try PropertyListSerialization.propertyList(from: original, format: nil) as? [String: Any] else {
            throw BenchFailure(description: "\(infoPath) is not a dictionary")
        }
        info["BundleFSBenchRun"] = "bench-run-\(run)"
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0).write(to: URL(fileURLWithPath: infoPath), options: .atomic)
        let shown = view.path(".bundlefs/by-id/\(BenchmarkTree.identifier(0))/Info.plist")
        try wait("App0's update") { (try? String(contentsOfFile: shown, encoding: .utf8))?.contains("bench-run-\(run)<") == true }
        try "\(run)\n".write(toFile: Paths.join(source, barrier), atomically: true, encoding: .utf8)
        try wait("the barrier after App0's update") { (try? String(contentsOfFile: self.view.path(self.barrier), encoding: .utf8)) == "\(self.run)\n" }
    }

    func restore() {
        try? original.write(to: URL(fileURLWithPath: infoPath), options: .atomic)
        unlink(Paths.join(source, barrier))
    }

    private func wait(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Timing.now() + 30
        while !condition() {
            guard Timing.now() < deadline else { throw BenchFailure(description: "\(what) did not show through the view within 30 s") }
            usleep(5_000)
        }
    }
}
