import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// SPEC.md's memory figure: the daemon under 150 MB resident at 1,000,000 entries of which 50,000
/// are bundles (the benchmark tree's layout at 50,000 bundles), for `watch` after its initial index
/// and after a restart on that catalogue, and for `mount` after its index, a `find` and an `ls -lR`
/// (which makes the kernel hold every entry). Also the open-file limit the mount ran with and the
/// descriptors it held at the end.
enum MemoryBench {
    static let bundles = 50_000

    static func run(binary: String, output: String, mountPoint: String, runs: Int, report: inout Report) throws {
        let tree = BenchmarkTree(root: Paths.join(output, "million-tree"), bundles: bundles)
        if !tree.isComplete {
            progress("generating a tree of \(bundles) bundles (about 1,000,000 entries) ...")
            tree.generate()
        }
        let entries = try Subprocess.run("/usr/bin/find", [tree.root, "-mindepth", "1", "-printf", "."], timeout: 600).standardOutput.utf8.count
        let label = "\(entries.formatted()) entries, \(bundles.formatted()) bundles"
        let watches = WatchLimit.raised(to: 2_000_000)
        defer { watches.restore() }

        let catalogue = Paths.join(output, "memory.sqlite")
        CatalogueFiles.remove(catalogue)
        for step in ["initial index", "restart"] {
            progress("memory: `watch` of \(label), \(step) ...")
            let started = Timing.now()
            let watcher = try WatcherProcess(roots: [tree.root], catalogue: catalogue, logFile: Paths.join(output, "memory-watch.log"),
                                             environment: ["BUNDLEFS_BINARY": binary])
            try watcher.waitUntilWatching(timeout: 900)
            let seconds = Timing.now() - started
            let memory = ProcessMemory(pid: watcher.pid)
            // As root the watcher chooses fanotify (`--backend auto`), whose handle table costs
            // more than inotify's watches (Docs/watcher.md): the figure says which it measured.
            let backend = watcher.status()?.backend ?? "backend unknown"
            try watcher.stop()
            report.add("memory: `watch`, \(label), after \(step)", value: String(format: "%@ (ready in %.1f s, %@)", memory.summary, seconds, backend), goal: "< 150 MB")
        }

        progress("memory: `mount` of \(label), with its own index, then `find` and `ls -lR` ...")
        let mountCatalogue = Paths.join(output, "memory-mount.sqlite")
        CatalogueFiles.remove(mountCatalogue)
        let view = try MountedView(source: tree.root, mountPoint: mountPoint, catalogue: mountCatalogue, languages: "en",
                                   logFile: Paths.join(output, "memory-mount.log"), environment: ["BUNDLEFS_BINARY": binary])
        defer { _ = try? view.stop() }
        var steps: [String] = ["ready \(ProcessMemory(pid: view.pid).residentMB) MB"]
        let findSeconds = Timing.run("/usr/bin/find", [mountPoint])
        steps.append(String(format: "after find (%.1f s) %@ MB", findSeconds, ProcessMemory(pid: view.pid).residentMB))
        let seconds = Timing.run("/bin/ls", ["-lR", mountPoint])
        let memory = ProcessMemory(pid: view.pid)
        steps.append(String(format: "after ls -lR (%.1f s) %@ MB", seconds, memory.residentMB))
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(view.pid)/fd").count) ?? -1
        report.add("memory: `mount`, \(label)", value: "\(steps.joined(separator: ", ")); peak \(memory.peakMB) MB; "
                   + "\(descriptors) descriptors (limit \(limit.rlim_cur))", goal: "< 150 MB")
        try ListingBench.run(view: view, source: tree.root, label: "\(bundles.formatted()) bundles", output: output, runs: runs, report: &report)
    }
}

/// A process's resident memory now and at its peak, from /proc.
struct ProcessMemory {
    var resident = 0
    var peak = 0

    init(pid: Int32) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { resident = kilobytes }
            if fields[0] == "VmHWM:" { peak = kilobytes }
        }
    }

    var residentMB: String { String(format: "%.1f", Double(resident) / 1024) }
    var peakMB: String { String(format: "%.1f", Double(peak) / 1024) }
    var summary: String { "\(residentMB) MB resident, peak \(peakMB) MB" }
}

/// The kernel's inotify watch limit, raised for a benchmark (as root) and put back after, so that
/// a tree of 250,000 directories is watched whole.
struct WatchLimit {
    static let path = "/proc/sys/fs/inotify/max_user_watches"
    let previous: String?

    static func raised(to value: Int) -> WatchLimit {
        let previous = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let current = previous.flatMap(Int.init), current < value,
              (try? "\(value)\n".write(toFile: path, atomically: false, encoding: .utf8)) != nil
        else { return WatchLimit(previous: nil) }
        return WatchLimit(previous: previous)
    }

    func restore() {
        if let previous { try? "\(previous)\n".write(toFile: Self.path, atomically: false, encoding: .utf8) }
    }
}
