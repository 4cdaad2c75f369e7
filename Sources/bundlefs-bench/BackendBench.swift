import Catalogue
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// The two watcher backends side by side on one tree (`bundlefs-bench --backends`, on the
/// million-entry tree with `--million`): time from the end of the index to watching (a restart on
/// an unchanged tree, beside a re-index of it, which lists nothing: the difference is adding watches
/// or registering handles), the kernel's memory for watching (the notification caches of
/// /proc/slabinfo, inodes kept after dropping caches, and MemAvailable, each while the daemon runs
/// against after it stopped), the daemon's resident memory, change to catalogue p50/p99, storm
/// convergence, and the daemon's CPU while an unrelated writer creates and removes 10,000 files a
/// second elsewhere on the same filesystem (against its CPU over as long a quiet spell).
enum BackendBench {
    /// One run: a backend, and for inotify whether `max_user_watches` is raised to fit the tree.
    struct Run {
        var backend: String
        var raisedLimit = false
        var label: String { raisedLimit ? "\(backend), max_user_watches raised" : backend }
    }

    struct Figures {
        var label: String
        var coldStart: Double
        var reindex: Double
        var warmStart: Double
        var watched = 0
        var unwatched = 0
        var slabBytes = 0
        var pinnedBytes = 0
        var memAvailableDrop = 0
        var residentBytes = 0
        var latencies: [Double] = []
        var stormChanges = 0
        var stormSeconds = 0.0
        var convergeSeconds = 0.0
        var overflows = 0
        var rescans = 0
        var writerRate = 0.0
        var cpuShare = 0.0
        var idleCPUShare = 0.0
        var eventsOutside = 0
        var loads: [String: String] = [:]
    }

    static let writerSeconds = 10.0

    static func run(binary: String, output: String, treeRoot: String, bundles: Int, changes: Int, runs: [Run]) throws -> [Figures] {
        let tree = BenchmarkTree(root: treeRoot, bundles: bundles)
        if !tree.isComplete {
            progress("generating \(bundles) bundles in \(treeRoot) ...")
            tree.generate()
        }
        return try runs.map { run in
            let limit = run.raisedLimit ? WatchLimit.raised(to: 2_000_000) : WatchLimit(previous: nil)
            defer { limit.restore() }
            return try measure(run, binary: binary, output: output, treeRoot: treeRoot, bundles: bundles, changes: changes)
        }
    }

    static func measure(_ run: Run, binary: String, output: String, treeRoot: String, bundles: Int, changes: Int) throws -> Figures {
        let backend = run.backend
        let name = run.raisedLimit ? "\(backend)-raised" : backend
        let cataloguePath = Paths.join(output, "backend-\(name).sqlite")
        CatalogueFiles.remove(cataloguePath)
        var loads: [String: String] = [:]
        // A first start indexes; the second, on an unchanged tree, is what watching costs, beside
        // a re-index of the same unchanged tree.
        loads["cold start"] = loadAverage()
        let (coldProcess, coldStart) = try start(binary: binary, backend: backend, treeRoot: treeRoot, catalogue: cataloguePath, log: Paths.join(output, "backend-\(name)-cold.log"))
        coldProcess.terminate()
        coldProcess.waitUntilExit()
        loads["re-index"] = loadAverage()
        let reindex = Timing.run(binary, ["index", treeRoot], environment: ["BUNDLEFS_CATALOGUE": cataloguePath])
        loads["restart"] = loadAverage()
        let (process, warmStart) = try start(binary: binary, backend: backend, treeRoot: treeRoot, catalogue: cataloguePath, log: Paths.join(output, "backend-\(name).log"))
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let pid = process.processIdentifier
        var figures = Figures(label: run.label, coldStart: coldStart, reindex: reindex, warmStart: warmStart)
        let watching = WatchStatus.published(catalogue: FilePath(cataloguePath))
        figures.watched = watching?.watchedDirectories ?? 0
        figures.unwatched = watching?.unwatchedDirectories ?? 0
        figures.residentBytes = residentBytes(pid)
        let kernelWatching = KernelMemory.now()
        progress("\(run.label): watching after \(String(format: "%.2f", warmStart)) s (cold \(String(format: "%.2f", coldStart)) s, re-index \(String(format: "%.2f", reindex)) s); timing \(changes) changes")

        let writer = TreeWriter(root: treeRoot)
        let catalogue = try Catalogue(path: cataloguePath, mode: .readOnly)
        loads["changes"] = loadAverage()
        let groups = max(1, bundles / 100)
        var added: [String] = []
        for index in 0..<changes {
            // Spread over the whole tree: with inotify past its limit, some groups are unwatched.
            let path = "Group\((index * 37) % groups)/Backend-\(name)-\(index).app"
            let start = Timing.now()
            writer.macApp(path, identifier: "com.example.backend.\(name).\(index)")
            added.append(path)
            try WatchBench.waitUntil(timeout: 300) { (try? catalogue.bundle(atPath: writer.path(path))) != nil }
            figures.latencies.append(Timing.now() - start)
        }

        progress("\(run.label): a storm of changes")
        var storm = BackendStorm(root: treeRoot, bundles: bundles, tag: name)
        defer {
            storm.undo()
            for path in added { writer.remove(path) }
        }
        loads["storm"] = loadAverage()
        let stormStart = Timing.now()
        storm.write()
        let stormEnd = Timing.now()
        // A thousand lookups a poll: polled every 20 ms, not to starve the daemon.
        try WatchBench.waitUntil(timeout: 900, every: 20_000) { storm.converged(catalogue, status: WatchStatus.published(catalogue: FilePath(cataloguePath))) }
        figures.convergeSeconds = Timing.now() - stormEnd
        figures.stormSeconds = stormEnd - stormStart
        figures.stormChanges = storm.operations
        let afterStorm = WatchStatus.published(catalogue: FilePath(cataloguePath))
        figures.overflows = afterStorm?.overflows ?? 0
        figures.rescans = afterStorm?.rescans ?? 0

        // The daemon's CPU over a quiet spell, then while the unrelated writer runs as long.
        try WatchBench.waitUntil(timeout: 120) { (WatchStatus.published(catalogue: FilePath(cataloguePath))?.pending ?? 1) == 0 }
        var quietStart = cpuSeconds(pid)
        var began = Timing.now()
        while Timing.now() - began < writerSeconds { usleep(100_000) }
        figures.idleCPUShare = (cpuSeconds(pid) - quietStart) / (Timing.now() - began)
        progress("\(run.label): the unrelated writer, 10,000 files a second for \(Int(writerSeconds)) s")
        let unrelated = Paths.join(output, "backend-unrelated")
        loads["writer"] = loadAverage()
        quietStart = cpuSeconds(pid)
        began = Timing.now()
        let written = unrelatedWriter(directory: unrelated, rate: 10_000, threads: 2, seconds: writerSeconds)
        let elapsed = Timing.now() - began
        figures.cpuShare = (cpuSeconds(pid) - quietStart) / elapsed
        figures.writerRate = Double(written) / elapsed
        removeTree(unrelated)
        figures.eventsOutside = WatchStatus.published(catalogue: FilePath(cataloguePath))?.eventsOutside ?? 0
        process.terminate()
        process.waitUntilExit()
        // What watching held in the kernel: while it ran, against now that it stopped.
        let kernelStopped = KernelMemory.now()
        figures.slabBytes = kernelWatching.slabBytes - kernelStopped.slabBytes
        figures.pinnedBytes = kernelWatching.pinnedBytes - kernelStopped.pinnedBytes
        figures.memAvailableDrop = kernelStopped.memAvailable - kernelWatching.memAvailable
        figures.loads = loads
        return figures
    }

    /// The kernel's memory that watching can hold, measured after dropping reclaimable caches.
    struct KernelMemory {
        var slabBytes: Int
        var pinnedBytes: Int
        var memAvailable: Int

        static func now() -> KernelMemory {
            let pinned = pinnedInodeBytes()
            return KernelMemory(slabBytes: notificationSlabBytes(), pinnedBytes: pinned, memAvailable: BackendBench.memAvailable())
        }
    }

    static func start(binary: String, backend: String, treeRoot: String, catalogue: String, log: String) throws -> (Process, Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["watch", treeRoot, "--backend", backend]
        var environment = ProcessInfo.processInfo.environment
        environment["BUNDLEFS_CATALOGUE"] = catalogue
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let started = Timing.now()
        try process.run()
        try WatchBench.waitUntil(timeout: 1800) {
            if !process.isRunning { throw BenchFailure(description: "bundlefs watch --backend \(backend) exited with \(process.terminationStatus); see \(log)") }
            guard let status = WatchStatus.published(catalogue: FilePath(catalogue)) else { return false }
            return status.pid == process.processIdentifier && status.state == .watching
        }
        return (process, Timing.now() - started)
    }

    /// Bytes in the slab caches of inotify and fanotify marks, their connectors and events. They
    /// are merged with caches of objects of the same size (/sys/kernel/slab/NAME links to the
    /// merged one), so the count is of the merged caches, each once: a difference, not a level.
    static func notificationSlabBytes() -> Int {
        var seen = Set<String>()
        var total = 0
        for name in ["inotify_inode_mark", "fsnotify_mark_connector", "fanotify_mark", "fanotify_fid_event"] {
            let path = "/sys/kernel/slab/\(name)"
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? name
            guard seen.insert(target).inserted else { continue }
            total += slabNumber(path + "/objects") * slabNumber(path + "/slab_size")
        }
        return total
    }

    private static func slabNumber(_ path: String) -> Int {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: " ").first.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    /// Bytes of inodes and dentries that stay cached after reclaimable ones are dropped: what
    /// inotify's watches pin (a watched inode cannot be evicted).
    static func pinnedInodeBytes() -> Int {
        dropCaches()
        guard let text = try? String(contentsOfFile: "/proc/slabinfo", encoding: .utf8) else { return 0 }
        var total = 0
        for line in text.split(separator: "\n") where line.hasPrefix("ext4_inode_cache ") || line.hasPrefix("dentry ") || line.hasPrefix("shmem_inode_cache ") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, let active = Int(fields[1]), let size = Int(fields[3]) else { continue }
            total += active * size
        }
        return total
    }

    static func memAvailable() -> Int { meminfo("MemAvailable:") }

    static func meminfo(_ key: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }

    static func residentBytes(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else { return 0 }
        return kilobytes * 1024
    }

    /// User and system time of a process, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Frees reclaimable caches, so that MemAvailable moves with what watching pins.
    static func dropCaches() {
        sync()
        _ = try? "2\n".write(toFile: "/proc/sys/vm/drop_caches", atomically: false, encoding: .utf8)
    }

    static func print(_ figures: [Figures]) {
        func megabytes(_ bytes: Int) -> String { String(format: "%+.1f MB", Double(bytes) / 1_048_576) }
        func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
        func milliseconds(_ value: Double) -> String { String(format: "%.1f ms", value * 1000) }
        for figure in figures {
            let loads = figure.loads.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "; ")
            Swift.print("""
                \(figure.label):
                  start (index, then watching): \(seconds(figure.coldStart)); restart on the unchanged tree: \(seconds(figure.warmStart)), \
                re-index of it (no watching): \(seconds(figure.reindex)), difference \(seconds(figure.warmStart - figure.reindex)); \
                \(figure.watched) directories watched, \(figure.unwatched) unwatched
                  kernel while watching, against after: notification slabs \(megabytes(figure.slabBytes)), \
                inodes and dentries kept after dropping caches \(megabytes(figure.pinnedBytes)), MemAvailable \(megabytes(-figure.memAvailableDrop))
                  daemon RSS when watching: \(megabytes(figure.residentBytes).dropFirst())
                  change to catalogue: p50 \(milliseconds(Timing.percentile(figure.latencies, 0.5))), p99 \(milliseconds(Timing.percentile(figure.latencies, 0.99))), \
                max \(milliseconds(figure.latencies.max() ?? 0)) (\(figure.latencies.count) new bundles)
                  storm: \(figure.stormChanges) changes written in \(seconds(figure.stormSeconds)), converged \(seconds(figure.convergeSeconds)) after; \
                overflows \(figure.overflows), rescans \(figure.rescans) so far
                  daemon CPU while \(String(format: "%.0f", figure.writerRate)) files/s are created and removed beside the tree: \
                \(String(format: "%.1f", figure.cpuShare * 100))% of a core, against \(String(format: "%.1f", figure.idleCPUShare * 100))% over as long a quiet spell \
                (events dropped outside the roots: \(figure.eventsOutside))
                  load average (1, 5, 15 min) at each step: \(loads)
                """)
        }
    }
}
