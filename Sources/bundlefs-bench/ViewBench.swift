import Fixtures
import Foundation
import SystemCalls
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The view's figures: the same work on a warm tree natively, through bindfs and through the
/// view, as ratios to native. Metadata and reads use a plain tree (no packages), where the view
/// must show exactly what the source holds; package reads use the bundle tree.
enum ViewBench {
    /// One timed piece of work, given the root it runs under.
    struct Workload {
        var name: String
        var goal: String
        var run: (String) -> Double
    }

    static func run(binary: String, output: String, bundleTree: String, runs: Int, report: inout Report) throws {
        setenv("BUNDLEFS_BINARY", binary, 1) // MountedView starts this binary
        let plain = PlainTree(root: Paths.join(output, "plain-tree"))
        if !plain.isComplete {
            progress("generating the plain tree for the view figures ...")
            plain.generate()
        }
        _ = BareWalk.walk(plain.root)
        let viewMount = Paths.join(output, "mnt-view"), bindfsMount = Paths.join(output, "mnt-bindfs")
        for mountPoint in [viewMount, bindfsMount] { unmountIfMounted(mountPoint) }

        var view = try mountView(binary: binary, source: plain.root, mountPoint: viewMount, output: output, threads: nil)
        let bindfs = mountBindfs(source: plain.root, mountPoint: bindfsMount)
        defer { if bindfs { unmountIfMounted(bindfsMount) } }

        // At least five runs a side, alternating, so a 10% change can be told from noise.
        let pairedRuns = max(runs, 5)
        report.notes.append("view figures: medians of \(pairedRuns) runs alternating with native ones; requests are the daemon's per run")
        for workload in workloads(plain) {
            let samples = measurePaired(workload, native: plain.root, view: viewMount, runs: pairedRuns)
            let native = samples.nativeMedian, served = samples.viewMedian
            report.add("view: \(workload.name)", seconds: served, against: "native", baselineSeconds: native, goal: workload.goal)
            report.notes.append("view \(workload.name): \(PairedSamples.describe(samples.view)), native \(PairedSamples.describe(samples.native)); "
                + "requests per run: \(samples.requestsPerRun(runs: pairedRuns))")
            if bindfs {
                let bound = measure(workload, under: bindfsMount, runs: runs)
                report.notes.append(String(format: "view %@: %.3f s, bindfs %.3f s (view/bindfs %.2fx)", workload.name, served, bound, served / bound))
            }
        }

        // On 2 cores one serving thread may serve serial work faster: measure the single loop too.
        try view.stop()
        view = try mountView(binary: binary, source: plain.root, mountPoint: viewMount, output: output, threads: 1)
        for workload in workloads(plain) where ["find", "small-file open+read+close"].contains(workload.name) {
            let multi = report.lines.first { $0.figure == "view: \(workload.name)" }?.value ?? "?"
            let single = measure(workload, under: viewMount, runs: runs)
            report.notes.append(String(format: "view %@ with a 1-thread loop: %.3f s (the default, up to 4 threads: %@)", workload.name, single, multi))
        }
        try view.stop()

        try packageFigures(binary: binary, output: output, bundleTree: bundleTree, mountPoint: viewMount, runs: runs, report: &report)
    }

    static func workloads(_ plain: PlainTree) -> [Workload] {
        let missing = plain.missingNames(20_000), small = plain.smallFiles(20_000)
        return [
            Workload(name: "find", goal: "≤ 1.2x") { Timing.run("/usr/bin/find", [$0]) },
            Workload(name: "ls -lR", goal: "≤ 2x") { Timing.run("/bin/ls", ["-lR", $0]) },
            Workload(name: "du -s", goal: "≤ 1.2x") { Timing.run("/usr/bin/du", ["-s", $0]) },
            Workload(name: "20,000 missing-name lookups", goal: "≤ 1.1x") { root in
                Timing.seconds { for name in missing { precondition(!exists(Paths.join(root, name))) } }
            },
            Workload(name: "small-file open+read+close", goal: "≤ 1.5x") { root in
                Timing.seconds { for name in small { _ = readWhole(Paths.join(root, name)) } }
            },
            Workload(name: "1 GiB sequential read", goal: "≤ 1.6x") { root in
                Timing.seconds { precondition(readWhole(Paths.join(root, PlainTree.largeFile)) == PlainTree.largeSize) }
            },
        ]
    }

    /// One untimed run on each side to warm every cache, then `runs` timed runs on each side,
    /// alternating which goes first; the view's request counts are taken around its runs.
    static func measurePaired(_ workload: Workload, native: String, view: String, runs: Int) -> PairedSamples {
        _ = workload.run(native)
        _ = workload.run(view)
        var samples = PairedSamples()
        for index in 0..<runs {
            let viewFirst = index % 2 == 1
            if !viewFirst { samples.native.append(workload.run(native)) }
            let before = RequestCounter.read(view)
            samples.view.append(workload.run(view))
            for (kind, count) in RequestCounter.difference(RequestCounter.read(view), before) { samples.requests[kind, default: 0] += count }
            if viewFirst { samples.native.append(workload.run(native)) }
        }
        return samples
    }

    /// The median of `runs` timed runs after one untimed run that warms every cache.
    static func measure(_ workload: Workload, under root: String, runs: Int) -> Double {
        _ = workload.run(root)
        return Timing.median(runs) { workload.run(root) }
    }

    /// Reading packages as tar files through the view against reading their files natively
    /// (listing each directory, stat-ing each entry and reading each file, which a tar must do).
    static func packageFigures(binary: String, output: String, bundleTree: String, mountPoint: String, runs: Int, report: inout Report) throws {
        let view = try mountView(binary: binary, source: bundleTree, mountPoint: mountPoint, output: output, threads: nil)
        defer { _ = try? view.stop() }
        let groups = (0..<10).map { "Group\($0)" }
        var packageCount = 0, tarBytes = 0
        let viaView = Workload(name: "package tar read", goal: "≤ 2x") { root in
            Timing.seconds {
                packageCount = 0
                tarBytes = 0
                for group in groups {
                    for name in (try? Descriptor.open(Paths.join(root, group), flags: Descriptor.directoryNoFollow).listDirectory()) ?? [] {
                        packageCount += 1
                        tarBytes += readWhole(Paths.join(Paths.join(root, group), name.name.string))
                    }
                }
            }
        }
        let native = Workload(name: "package files read", goal: "") { root in
            Timing.seconds { for group in groups { readTree(Paths.join(root, group)) } }
        }
        let nativeSeconds = measure(native, under: bundleTree, runs: runs)
        let viewSeconds = measure(viaView, under: mountPoint, runs: runs)
        report.add("view: package tar read (\(packageCount) packages, \(tarBytes >> 20) MiB)", seconds: viewSeconds,
                   against: "native files", baselineSeconds: nativeSeconds, goal: "≤ 2x")
        let finderFind = measure(Workload(name: "find", goal: "") { Timing.run("/usr/bin/find", [$0]) }, under: mountPoint, runs: runs)
        let nativeFind = measure(Workload(name: "find", goal: "") { Timing.run("/usr/bin/find", [$0]) }, under: bundleTree, runs: runs)
        report.notes.append(String(format: "`find` of the bundle tree's Finder view (packages are files): %.3f s, native `find` of every file %.3f s",
                                   finderFind, nativeFind))
        try ListingBench.run(view: view, source: bundleTree, label: "the bundle tree", output: output, runs: runs, report: &report)
        try view.stop()
        try SymbolListingBench.run(binary: binary, output: output, bundleTree: bundleTree, mountPoint: mountPoint, runs: runs, report: &report)
        let single = try mountView(binary: binary, source: bundleTree, mountPoint: mountPoint, output: output, threads: 1)
        defer { _ = try? single.stop() }
        report.notes.append("with a 1-thread loop, a lookup while `ls -l .bundlefs/by-uuid` runs after an update: \(ListingBench.lookupsWhileListing(single, source: bundleTree))")
    }

    /// The listings of `.bundlefs` alone (`--view-listings-only`): by-id and by-uuid warm and after an
    /// update, the symbol stores after a mount.
    static func listingFigures(binary: String, output: String, bundleTree: String, runs: Int, report: inout Report) throws {
        setenv("BUNDLEFS_BINARY", binary, 1)
        let mountPoint = Paths.join(output, "mnt-view")
        unmountIfMounted(mountPoint)
        let view = try mountView(binary: binary, source: bundleTree, mountPoint: mountPoint, output: output, threads: nil)
        try ListingBench.run(view: view, source: bundleTree, label: "the bundle tree", output: output, runs: runs, report: &report)
        try view.stop()
        try SymbolListingBench.run(binary: binary, output: output, bundleTree: bundleTree, mountPoint: mountPoint, runs: runs, report: &report)
    }

    /// `threads` nil: the default.
    static func mountView(binary: String, source: String, mountPoint: String, output: String, threads: Int?) throws -> MountedView {
        let catalogue = Paths.join(output, "view-\(Paths.lastComponent(source)).sqlite")
        return try MountedView(source: source, mountPoint: mountPoint, catalogue: catalogue, languages: "en",
                               logFile: Paths.join(output, "view.log"), arguments: threads.map { ["--threads", String($0)] } ?? [],
                               environment: ["BUNDLEFS_BINARY": binary])
    }

    /// bindfs, where Debian's package is installed; its daemon forks, so it is unmounted by path.
    static func mountBindfs(source: String, mountPoint: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bindfs") else {
            progress("bindfs is not installed; its figures are left out")
            return false
        }
        try? FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let status = (try? Spawn.runDetached("/usr/bin/bindfs", arguments: ["-o", "ro", source, mountPoint])) ?? -1
        if status != 0 { progress("bindfs failed with status \(status); its figures are left out") }
        return MountTable.isMountPoint(FilePath(mountPoint))
    }

    static func unmountIfMounted(_ mountPoint: String) {
        if MountTable.isMountPoint(FilePath(mountPoint)) { _ = try? Subprocess.run("/usr/bin/fusermount3", ["-uz", mountPoint]) }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Opens, reads to the end in 128 KiB reads, closes; returns the bytes read.
    static func readWhole(_ path: String) -> Int {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        precondition(descriptor >= 0, "cannot open \(path): \(String(cString: strerror(errno)))")
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(byteCount: 128 << 10, alignment: 4096) { buffer in
            var total = 0
            while case let count = read(descriptor, buffer.baseAddress, buffer.count), count > 0 { total += count }
            return total
        }
    }

    /// Lists every directory, stats every entry and reads every regular file under `root`.
    static func readTree(_ root: String) {
        var pending = [root]
        while let path = pending.popLast() {
            guard let listing = try? Descriptor.open(path, flags: Descriptor.directoryNoFollow).listDirectory() else { continue }
            for entry in listing {
                let child = Paths.join(path, entry.name.string)
                var status = stat()
                guard lstat(child, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR: pending.append(child)
                case S_IFREG: _ = readWhole(child)
                default: break
                }
            }
        }
    }
}

/// A tree without packages: 1,100 directories, 50,000 small files of 1 to 4 KiB and one 1 GiB
/// file, so that the view and the source hold the same entries.
struct PlainTree {
    let root: String
    static let largeFile = "large.bin"
    static let largeSize = 1 << 30
    static let version = "1"

    var marker: String { Paths.join(root, ".plain-tree") }
    var isComplete: Bool { (try? String(contentsOfFile: marker, encoding: .utf8)) == Self.version }

    func directory(_ index: Int) -> String { String(format: "d%02d/s%d", index / 10, index % 10) }

    func generate() {
        try? FileManager.default.removeItem(atPath: root)
        let writer = TreeWriter(root: root)
        var generator = SeededGenerator(seed: 5)
        for index in 0..<1_000 {
            for file in 0..<50 {
                let size = Int.random(in: 1024...4096, using: &generator)
                writer.file(Paths.join(directory(index), String(format: "f%03d.txt", file)), [UInt8](repeating: UInt8(truncatingIfNeeded: file), count: size))
            }
        }
        let chunk = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let large = FileManager.default.createFile(atPath: Paths.join(root, Self.largeFile), contents: nil)
        precondition(large, "cannot create the large file")
        let handle = FileHandle(forWritingAtPath: Paths.join(root, Self.largeFile))!
        for _ in 0..<(Self.largeSize >> 20) { handle.write(Data(chunk)) }
        try? handle.close()
        try? Self.version.write(toFile: marker, atomically: true, encoding: .utf8)
    }

    /// Names that do not exist, spread over the directories, the same on every run.
    func missingNames(_ count: Int) -> [String] {
        (0..<count).map { Paths.join(directory($0 % 1_000), "missing\($0).txt") }
    }

    func smallFiles(_ count: Int) -> [String] {
        (0..<count).map { Paths.join(directory($0 % 1_000), String(format: "f%03d.txt", $0 / 1_000 % 50)) }
    }
}
