import Catalogue
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// The two watcher backends side by side on one tree (`bundlefs-bench --backends`): time from the
/// end of the index to watching (a restart on an unchanged tree, where the index lists nothing and
/// the time is adding watches or registering handles), the kernel's memory for watching (the
/// notification caches of /proc/slabinfo, and MemAvailable), the daemon's resident memory, change to
/// catalogue p50/p99, and the daemon's CPU while an unrelated writer creates and removes 10,000
/// files a second elsewhere on the same filesystem.
enum BackendBench {
    struct Figures {
        var backend: String
        var coldStart: Double
        var warmStart: Double
        var slabBytes: Int
        var pinnedBytes: Int
        var memAvailableDrop: Int
        var residentBytes: Int
        var latencies: [Double]
        var writerRate: Double
        var cpuShare: Double
        var eventsOutside: Int
    }

    static func run(binary: String, output: String, bundles: Int, changes: Int) throws -> [Figures] {
        let treeRoot = Paths.join(output, "backend-tree")
        let tree = BenchmarkTree(root: treeRoot, bundles: bundles)
        if !tree.isComplete {
            progress("generating \(bundles) bundles in \(treeRoot) ...")
            tree.generate()
        }
        return try ["inotify", "fanotify"].map { try measure(backend: $0, binary: binary, output: output, treeRoot: treeRoot, bundles: bundles, changes: changes) }
    }

    static func measure(backend: String, binary: String, output: String, treeRoot: String, bundles: Int, changes: Int) throws -> Figures {
        let cataloguePath = Paths.join(output, "backend-\(backend).sqlite")
        CatalogueFiles.remove(cataloguePath)
        // A first start indexes; the second, on an unchanged tree, is what watching costs.
        let (coldProcess, coldStart) = try start(binary: binary, backend: backend, treeRoot: treeRoot, catalogue: cataloguePath, log: Paths.join(output, "backend-\(backend)-cold.log"))
        coldProcess.terminate()
        coldProcess.waitUntilExit()
        let pinnedBefore = pinnedInodeBytes()
        let slabBefore = notificationSlabBytes()
        let availableBefore = memAvailable()
        let (process, warmStart) = try start(binary: binary, backend: backend, treeRoot: treeRoot, catalogue: cataloguePath, log: Paths.join(output, "backend-\(backend).log"))
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let slabBytes = notificationSlabBytes() - slabBefore
        let pinned = pinnedInodeBytes() - pinnedBefore
        let availableDrop = availableBefore - memAvailable()
        let resident = residentBytes(process.processIdentifier)
        progress("\(backend): watching after \(String(format: "%.2f", warmStart)) s (cold \(String(format: "%.2f", coldStart)) s); timing \(changes) changes")

        let writer = TreeWriter(root: treeRoot)
        let catalogue = try Catalogue(path: cataloguePath, mode: .readOnly)
        var latencies: [Double] = []
        for index in 0..<changes {
            let path = "Group\(index % max(1, bundles / 100))/Backend\(backend)\(index).app"
            let start = Timing.now()
            writer.macApp(path, identifier: "com.example.backend.\(backend).\(index)")
            try WatchBench.waitUntil(timeout: 30) { (try? catalogue.bundle(atPath: writer.path(path))) != nil }
            latencies.append(Timing.now() - start)
        }

        // 10,000 files a second created and removed beside the tree, for five seconds.
        let unrelated = Paths.join(output, "backend-unrelated")
        try? FileManager.default.createDirectory(atPath: unrelated, withIntermediateDirectories: true)
        let pid = process.processIdentifier
        let cpuBefore = cpuSeconds(pid)
        let began = Timing.now()
        var written = 0
        while Timing.now() - began < 5 {
            let due = Int((Timing.now() - began) * 10_000)
            while written < due {
                let file = Paths.join(unrelated, "f\(written % 1000)")
                let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                if descriptor >= 0 { close(descriptor) }
                unlink(file)
                written += 1
            }
            usleep(1000)
        }
        let elapsed = Timing.now() - began
        let cpu = cpuSeconds(pid) - cpuBefore
        let outside = WatchStatus.published(catalogue: FilePath(cataloguePath))?.eventsOutside ?? 0
        process.terminate()
        process.waitUntilExit()
        return Figures(backend: backend, coldStart: coldStart, warmStart: warmStart, slabBytes: slabBytes, pinnedBytes: pinned, memAvailableDrop: availableDrop,
                       residentBytes: resident, latencies: latencies, writerRate: Double(written) / elapsed, cpuShare: cpu / elapsed, eventsOutside: outside)
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
        func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        for figure in figures {
            Swift.print("""
                \(figure.backend):
                  start (index, then watching): \(String(format: "%.2f", figure.coldStart)) s; restart on the unchanged tree: \(String(format: "%.2f", figure.warmStart)) s
                  kernel: notification slabs +\(megabytes(figure.slabBytes)), inodes and dentries kept after dropping caches +\(megabytes(figure.pinnedBytes)), MemAvailable -\(megabytes(figure.memAvailableDrop))
                  daemon RSS when watching: \(megabytes(figure.residentBytes))
                  change to catalogue: p50 \(String(format: "%.1f", Timing.percentile(figure.latencies, 0.5) * 1000)) ms, p99 \(String(format: "%.1f", Timing.percentile(figure.latencies, 0.99) * 1000)) ms (\(figure.latencies.count) new bundles)
                  daemon CPU while \(String(format: "%.0f", figure.writerRate)) files/s are created and removed beside the tree: \(String(format: "%.1f", figure.cpuShare * 100))% of a core (events dropped: \(figure.eventsOutside))
                """)
        }
    }
}
