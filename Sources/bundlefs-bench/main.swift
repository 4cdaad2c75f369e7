// `make bench`: the figures SPEC.md asks for, each as a ratio to a baseline measured in the same
// run on the same warm tree, since absolute times drift on shared machines.
import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import Records
import Scanner
import Synchronization
import SystemCalls
import TestSupport

/// Discards events: to time the walk and reads without the catalogue's writes.
struct NullSink: ScanSink {
    func receive(_ events: [ScanEvent]) {}
}

/// A progress line, on stderr so it shows at once.
func progress(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

struct Settings {
    var bundles = 20_000
    var runs = 3
    var lookups = 20_000
    var output = "bench-out"
    var index = true
    var watch = true
    var view = true
    var million = true
    var publish = true
    var openWith = true
    var symbols = true
    var web = true
    var webBundles = 50_000
    var webFleet = true
    var hostile = true
    var backup = true
    var installers = true
    var installerLimits = true
    var commandLine = true
    /// Of the view's figures, only the listings of `.bundlefs` (by-id, by-uuid, the symbol stores).
    var viewListingsOnly = false
    var latencyChanges = 1000
    var binary = Paths.join(Paths.parent((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""), "bundlefs")

    static let usage = "usage: bundlefs-bench [--bundles N] [--runs N] [--lookups N] [--changes N] [--output DIR] [--binary PATH] [--skip-index] [--skip-watch] [--skip-view] [--view-listings-only] [--skip-million] [--skip-publish] [--skip-open-with] [--skip-symbols] [--skip-web] [--web-bundles N] [--skip-web-fleet] [--skip-hostile] [--skip-backup] [--skip-installers] [--skip-installer-limits] [--skip-cli]"

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--bundles": bundles = Int(iterator.next() ?? "") ?? bundles
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--lookups": lookups = Int(iterator.next() ?? "") ?? lookups
            case "--output": output = iterator.next() ?? output
            case "--binary": binary = iterator.next() ?? binary
            case "--skip-index": index = false
            case "--skip-watch": watch = false
            case "--skip-view": view = false
            case "--view-listings-only": viewListingsOnly = true
            case "--skip-million": million = false
            case "--skip-publish": publish = false
            case "--skip-open-with": openWith = false
            case "--skip-symbols": symbols = false
            case "--skip-web": web = false
            case "--web-bundles": webBundles = Int(iterator.next() ?? "") ?? webBundles
            case "--skip-web-fleet": webFleet = false
            case "--skip-hostile": hostile = false
            case "--skip-backup": backup = false
            case "--skip-installers": installers = false
            case "--skip-installer-limits": installerLimits = false
            case "--skip-cli": commandLine = false
            case "--changes": latencyChanges = Int(iterator.next() ?? "") ?? latencyChanges
            case "--help", "-h": print(Self.usage); exit(0)
            default:
                FileHandle.standardError.write(Data("bundlefs-bench: unknown argument \(argument)\n\(Self.usage)\n".utf8))
                exit(2)
            }
        }
        output = output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output
    }
}

// `--index ROOT CATALOGUE [--skip-binaries] [--skip-launch-services]`: one index in this process, as
// `bundlefs index` makes it, or without a part the product always does: the paired index figures
// run this process on both sides, switching the part off explicitly (the product reads no switch).
if let at = CommandLine.arguments.firstIndex(of: "--index"), CommandLine.arguments.count > at + 2 {
    var options = ScanOptions()
    options.settings.readsBinaries = !CommandLine.arguments.contains("--skip-binaries")
    var indexer = Indexer(catalogue: try Catalogue(path: FilePath(CommandLine.arguments[at + 2]), mode: .readWrite), options: options)
    indexer.writesLaunchServices = !CommandLine.arguments.contains("--skip-launch-services")
    _ = try indexer.index(root: FilePath(CommandLine.arguments[at + 1]))
    exit(0)
}
// `--profile-scan`: only the one-thread scan, three times, for a profiler to look at.
if CommandLine.arguments.contains("--profile-scan") {
    let root = try ScanRoot(path: FilePath(CommandLine.arguments.last!), confinement: .trustedLinksOut)
    for _ in 0..<3 { _ = TreeScanner(root: root, options: ScanOptions(threads: 1)).scan(into: NullSink()) }
    exit(0)
}
// `--profile-write TREE`: scan once into memory, then only the catalogue writes, three times.
final class CollectingSink: ScanSink, Sendable {
    private let collected = Mutex<[[ScanEvent]]>([])
    var batches: [[ScanEvent]] { collected.withLock { $0 } }
    func receive(_ events: [ScanEvent]) { collected.withLock { $0.append(events) } }
}
if CommandLine.arguments.contains("--profile-write") {
    let sink = CollectingSink()
    _ = TreeScanner(root: try ScanRoot(path: FilePath(CommandLine.arguments.last!), confinement: .trustedLinksOut)).scan(into: sink)
    for run in 0..<3 {
        let path = "/tmp/bundlefs-profile-write-\(run).sqlite"
        CatalogueFiles.remove(path)
        let catalogue = try Catalogue(path: path, mode: .readWrite)
        // As an index writes: sparse checkpoints, the UUID index built at the end.
        // The writes run on this thread alone: its processor time is theirs, whatever the machine's load.
        let cpuBefore = threadSeconds()
        let seconds = try Timing.seconds {
            try catalogue.checkpointingSparsely {
                try catalogue.buildingIndexesAfterwards { for batch in sink.batches { try catalogue.apply(batch, scannedAt: 0) } }
            }
        }
        print(String(format: "writes: %.3f s (%.3f s of CPU) for %d events", seconds, threadSeconds() - cpuBefore, sink.batches.map { $0.count }.reduce(0, +)))
    }
    exit(0)
}
// `--profile-lookup CATALOGUE`: 50,000 identifier lookups, for a profiler.
if CommandLine.arguments.contains("--profile-lookup") {
    let catalogue = try Catalogue(path: CommandLine.arguments.last!, mode: .readOnly)
    var generator = SeededGenerator(seed: 1)
    let seconds = try Timing.seconds {
        for _ in 0..<50_000 { _ = try catalogue.bundles(matching: BundleQuery(identifier: BenchmarkTree.identifier(Int.random(in: 0..<20_000, using: &generator)))) }
    }
    print(String(format: "%.1f µs per lookup", seconds / 50_000 * 1e6))
    exit(0)
}
// `--profile-open-with CATALOGUE`: the open-with figure's questions, 100 times each, for a profiler.
if CommandLine.arguments.contains("--profile-open-with") {
    let catalogue = try Catalogue(path: CommandLine.arguments.last!, mode: .readOnly)
    for (label, question) in OpenWithBench.questions {
        var samples: [Double] = [], first: [Double] = []
        for _ in 0..<100 {
            samples.append(try Timing.seconds { _ = try catalogue.handlers(of: question) })
            first.append(try Timing.seconds { _ = try catalogue.handlers(of: question, limit: 1) })
        }
        let handlers = try catalogue.handlers(of: question)
        print(String(format: "%@: p50 %.2f ms (%d handlers, the first %@); the default application alone (limit 1) p50 %.3f ms", label,
                     Timing.percentile(samples, 0.5) * 1000, handlers.count, handlers.first?.application.identifier ?? "-", Timing.percentile(first, 0.5) * 1000))
    }
    exit(0)
}
// `--backends [--million] [--raise-watch-limit]`: the two watcher backends side by side on one tree
// (BackendBench), and nothing else; on the million-entry tree of the memory section with
// `--million`; with a third run, inotify with `max_user_watches` raised to fit the tree, with
// `--raise-watch-limit`.
if CommandLine.arguments.contains("--backends") {
    // `--raised-only`: that third run alone (the first two are the headline, made together).
    let own = ["--backends", "--million", "--raise-watch-limit", "--raised-only", "--fanotify-only"]
    let settings = Settings(Array(CommandLine.arguments.dropFirst()).filter { !own.contains($0) })
    let million = CommandLine.arguments.contains("--million")
    var runs = [BackendBench.Run(backend: "inotify"), BackendBench.Run(backend: "fanotify")]
    if CommandLine.arguments.contains("--raise-watch-limit") { runs.append(BackendBench.Run(backend: "inotify", raisedLimit: true)) }
    if CommandLine.arguments.contains("--raised-only") { runs = [BackendBench.Run(backend: "inotify", raisedLimit: true)] }
    // `--fanotify-only`: the fanotify run alone (its figures after a change to that backend).
    if CommandLine.arguments.contains("--fanotify-only") { runs = [BackendBench.Run(backend: "fanotify")] }
    BackendBench.print(try BackendBench.run(binary: settings.binary, output: settings.output,
                                            treeRoot: Paths.join(settings.output, million ? "million-tree" : "backend-tree"),
                                            bundles: million ? MemoryBench.bundles : settings.bundles, changes: settings.latencyChanges, runs: runs))
    exit(0)
}
let settings = Settings(Array(CommandLine.arguments.dropFirst()))
// The sections that start daemons through TestSupport (the memory figures' `watch` and `mount`)
// run `Subprocess.bundlefs`, which is this variable: without it they ran the binary beside the
// benchmark whatever `--binary` said.
setenv("BUNDLEFS_BINARY", settings.binary, 1)
let treeRoot = Paths.join(settings.output, "tree")
let cataloguePath = Paths.join(settings.output, "catalogue.sqlite")
let tree = BenchmarkTree(root: treeRoot, bundles: settings.bundles)
// The symbol server's section has a tree of its own: alone, it neither makes nor walks this one.
let needsTree = settings.index || settings.watch || settings.view || settings.million || settings.publish || settings.openWith || settings.commandLine
if needsTree && !tree.isComplete {
    progress("generating \(settings.bundles) bundles in \(treeRoot) ...")
    let seconds = Timing.seconds { tree.generate() }
    progress(String(format: "generated in %.1f s", seconds))
}

// The index's figures start from the inode and dentry caches a fresh machine has (KernelCaches;
// root only, and the pages of files whose inodes go with them), then warm the tree.
if settings.index { BackendBench.dropCaches() }
let (directoryCount, entryCount) = needsTree ? BareWalk.walk(treeRoot) : (0, 0) // also warms the cache
var report = Report(title: "bundlefs benchmark: \(settings.bundles) bundles, \(directoryCount) directories, \(entryCount) entries; median of \(settings.runs) runs, warm cache, \(Threads.processorCount) cores")
report.notes.append("binary: \(settings.binary)")
report.notes.append(KernelCaches.summary())

if settings.index {
    // Baselines.
    let find = "/usr/bin/find"
    _ = Timing.run(find, [treeRoot])
    let findWalk = Timing.median(settings.runs) { Timing.run(find, [treeRoot]) }
    let inProcessWalk = Timing.median(settings.runs) { Timing.seconds { _ = BareWalk.walk(treeRoot) } }
    let findDirectories = Timing.median(settings.runs) { Timing.run(find, [treeRoot, "-type", "d"]) }
    let walk = min(findWalk, inProcessWalk)
    report.notes.append(String(format: "baselines: `find ROOT` %.3f s, in-process getdents walk %.3f s, `find ROOT -type d` %.3f s", findWalk, inProcessWalk, findDirectories))

    // Initial index: a fresh catalogue each run.
    func removeCatalogue() { CatalogueFiles.remove(cataloguePath) }
    let environment = ["BUNDLEFS_CATALOGUE": cataloguePath]
    // One untimed run first: `find` warms directories, not the files an index reads.
    removeCatalogue()
    _ = Timing.run(settings.binary, ["index", treeRoot], environment: environment)
    let initial = Timing.median(settings.runs) {
        removeCatalogue()
        return Timing.run(settings.binary, ["index", treeRoot], environment: environment)
    }
    report.add("initial index", seconds: initial, against: "find", baselineSeconds: findWalk, goal: "≤ 1.5x")
    report.add("initial index", seconds: initial, against: "getdents walk", baselineSeconds: inProcessWalk, goal: "(≤ 1.5x)")

    // What one part of the index costs: the same index with and without it, each in a process of
    // this benchmark (`--index`, which switches the part off explicitly), runs alternating so that
    // drift hits both sides alike.
    let benchmark = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    func pairedIndex(_ label: String, skipping option: String, baseline: String, goal: String) {
        var wall = PairedSamples(), cpu = PairedSamples()
        for _ in 0..<max(9, settings.runs) {
            removeCatalogue()
            let skipping = Timing.runMeasuringCPU(benchmark, ["--index", treeRoot, cataloguePath, option])
            removeCatalogue()
            let doing = Timing.runMeasuringCPU(benchmark, ["--index", treeRoot, cataloguePath])
            wall.native.append(skipping.wall)
            wall.view.append(doing.wall)
            cpu.native.append(skipping.cpu)
            cpu.view.append(doing.cpu)
        }
        report.add("initial index, \(label)", seconds: wall.viewMedian, against: baseline, baselineSeconds: wall.nativeMedian, goal: goal)
        report.notes.append("index \(label): \(PairedSamples.describe(wall.view)); \(baseline): \(PairedSamples.describe(wall.native)) (alternating runs of `bundlefs-bench --index`, `\(option)`)")
        report.notes.append("  their CPU time (user + system): \(PairedSamples.describe(cpu.view)) against \(PairedSamples.describe(cpu.native)), "
                            + String(format: "%.2fx", cpu.viewMedian / cpu.nativeMedian))
    }
    // Reading executables' headers (rule 23).
    pairedIndex("reading headers", skipping: "--skip-binaries", baseline: "headers skipped", goal: "≤ 1.15x")
    // Launch Services' tables (rules 28 to 30): claims and type tags.
    pairedIndex("writing Launch Services' tables", skipping: "--skip-launch-services", baseline: "tables skipped", goal: "≤ 1.05x")

    // The same scan without catalogue writes, to show where the time goes.
    func scanOnly(threads: Int) -> Double {
        Timing.median(settings.runs) {
            Timing.seconds { _ = TreeScanner(root: try! ScanRoot(path: FilePath(treeRoot), confinement: .trustedLinksOut), options: ScanOptions(threads: threads)).scan(into: NullSink()) }
        }
    }
    let scanOneThread = scanOnly(threads: 1)
    let scanAllThreads = scanOnly(threads: Threads.processorCount)
    report.notes.append(String(format: "initial scan without catalogue writes: %.3f s on 1 thread, %.3f s on %d (%.2fx the bare walk)",
                               scanOneThread, scanAllThreads, Threads.processorCount, scanAllThreads / walk))

    // Re-index with nothing changed (the catalogue of the last initial run).
    let again = Timing.median(settings.runs) { Timing.run(settings.binary, ["index", treeRoot], environment: environment) }
    report.add("re-index, nothing changed", seconds: again, against: "find -type d", baselineSeconds: findDirectories, goal: "≤ 2x")

    // Lookups by identifier, in process, through the same API `bundlefs query` uses.
    let catalogue = try Catalogue(path: cataloguePath, mode: .readOnly)
    var generator = SeededGenerator(seed: 7)
    let identifiers = (0..<settings.lookups).map { _ in BenchmarkTree.identifier(Int.random(in: 0..<settings.bundles, using: &generator)) }
    var found = 0
    let lookupSeconds = Timing.seconds {
        for identifier in identifiers { found += try! catalogue.bundles(matching: BundleQuery(identifier: identifier)).count }
    }
    precondition(found == settings.lookups, "every looked-up identifier exists once; found \(found)")
    // Lookups by executable UUID, as `query --uuid` makes them (an indexed join), mixed spellings.
    let uuidQueries = (0..<settings.lookups).map { _ -> String in
        let index = Int.random(in: 0..<settings.bundles, using: &generator)
        let text = BinarySlice.canonicalUUID(BenchmarkTree.uuid(index)) + (index % 10 == 3 ? "00000000" : "")
        return index % 2 == 0 ? text.lowercased() : text.replacingOccurrences(of: "-", with: "")
    }
    var uuidFound = 0
    let uuidSeconds = Timing.seconds {
        for text in uuidQueries { uuidFound += try! catalogue.bundles(matching: BundleQuery(uuidKey: BinarySlice.uuidKey(text))).count }
    }
    precondition(uuidFound == settings.lookups, "every looked-up UUID belongs to one bundle; found \(uuidFound)")
    report.add("lookup by UUID (query --uuid)", value: String(format: "%.0f /s (%.1f µs each)", Double(settings.lookups) / uuidSeconds, uuidSeconds / Double(settings.lookups) * 1e6), goal: "(< 1 ms each)")
    report.add("lookup by identifier", value: String(format: "%.0f /s (%.1f µs each)", Double(settings.lookups) / lookupSeconds, lookupSeconds / Double(settings.lookups) * 1e6), goal: "< 1 ms each")
}

if settings.openWith {
    progress("open-with figures: \(OpenWithBench.applications) applications that claim types, in process ...")
    try OpenWithBench.run(binary: settings.binary, output: settings.output, report: &report)
}

if settings.symbols {
    progress("symbol server figures: a 100 MB DWARF file through serve-symbols and python3 -m http.server, then small lookups ...")
    try SymbolServerBench.run(binary: settings.binary, output: settings.output, runs: settings.runs, report: &report)
}

if settings.web {
    progress("web inventory figures: serve-web over a tree of \(settings.webBundles) bundles (made and indexed once per output directory) ...")
    try WebBench.run(binary: settings.binary, output: settings.output, bundles: settings.webBundles, fleet: settings.webFleet, report: &report)
}

if settings.hostile {
    progress("hostile-load figures: an honest client of serve-symbols while 700 others pipeline, never read, never send a body ...")
    try HostileLoadBench.run(binary: settings.binary, output: settings.output, report: &report)
}

if settings.backup {
    progress("backup figures: a Time Machine backup of \(BackupBench.bands) bands: index, watcher memory, a snapshot completing ...")
    try BackupBench.run(binary: settings.binary, output: settings.output, runs: settings.runs, report: &report)
}

if settings.publish {
    // The index section leaves its catalogue; alone, this section makes one.
    if !FileManager.default.fileExists(atPath: cataloguePath) || !settings.index {
        CatalogueFiles.remove(cataloguePath)
        _ = Timing.run(settings.binary, ["index", treeRoot], environment: ["BUNDLEFS_CATALOGUE": cataloguePath])
    }
    progress("publishing figures: \(settings.bundles) bundles to a local PostgreSQL, then \(PublishBench.hosts) hosts ...")
    try PublishBench.run(binary: settings.binary, catalogue: cataloguePath, output: settings.output, bundles: settings.bundles, runs: settings.runs, report: &report)
}

if settings.watch {
    progress("watcher figures: a fresh tree of \(settings.bundles) bundles, \(settings.latencyChanges) single changes, then a storm ...")
    let figures = try WatchBench.run(binary: settings.binary, output: settings.output, bundles: settings.bundles, changes: settings.latencyChanges)
    let p50 = Timing.percentile(figures.latencies, 0.5) * 1000, p99 = Timing.percentile(figures.latencies, 0.99) * 1000
    report.add("change to catalogue, p50", value: String(format: "%.1f ms (%d changes)", p50, figures.latencies.count), goal: "< 50 ms")
    report.add("change to catalogue, p99", value: String(format: "%.1f ms", p99), goal: "< 500 ms")
    report.add("storm of \(figures.stormChanges) changes", value: String(format: "converged %.2f s after the last (%@, %d overflows)",
               figures.convergeSeconds, figures.converged ? "equal to a fresh index" : "NOT equal to a fresh index", figures.overflows),
               goal: "converges, nothing lost")
}

if settings.index {
    progress("archive figures: 1,000 .ipa files, indexed and listed with bsdtar ...")
    try ArchiveBench.run(binary: settings.binary, output: settings.output, runs: settings.runs, report: &report)
}

if settings.commandLine {
    // The index section leaves its catalogue; alone, this section makes one.
    if !FileManager.default.fileExists(atPath: cataloguePath) || !settings.index {
        CatalogueFiles.remove(cataloguePath)
        _ = Timing.run(settings.binary, ["index", treeRoot], environment: ["BUNDLEFS_CATALOGUE": cataloguePath])
    }
    let staticBinary = Paths.join(FileManager.default.currentDirectoryPath, ".build-static/release/bundlefs")
    progress("command-line figures: query, symbols and --version as whole processes against sqlite3 ...")
    try CommandLineBench.run(binary: settings.binary, staticBinary: FileManager.default.isExecutableFile(atPath: staticBinary) ? staticBinary : nil,
                             catalogue: cataloguePath, report: &report)
}

if settings.installers {
    progress("installer figures: 1,000 .pkg files, indexed, and listed with their payloads by bsdtar ...")
    try InstallerBench.run(binary: settings.binary, output: settings.output, runs: settings.runs, report: &report)
}

if settings.installerLimits {
    progress("installer limits: a .pkg whose table of contents expands 300-fold, product archives of 2,500 and 10,000 components ...")
    try InstallerBench.runLimits(binary: settings.binary, output: settings.output, report: &report)
}

if settings.view {
    progress("view figures: native, bindfs and the view on the same warm trees ...")
    if settings.viewListingsOnly {
        try ViewBench.listingFigures(binary: settings.binary, output: settings.output, bundleTree: treeRoot, runs: settings.runs, report: &report)
    } else {
        try ViewBench.run(binary: settings.binary, output: settings.output, bundleTree: treeRoot, runs: settings.runs, report: &report)
    }
}

if settings.million {
    progress("memory figures: `watch` and `mount` of 1,000,000 entries with 50,000 bundles ...")
    try MemoryBench.run(binary: settings.binary, output: settings.output, mountPoint: Paths.join(settings.output, "mnt-memory"), runs: settings.runs, report: &report)
}

let text = report.rendered
print(text)
try? FileManager.default.createDirectory(atPath: settings.output, withIntermediateDirectories: true)
try? (text + "\n").write(toFile: Paths.join(settings.output, "report.txt"), atomically: true, encoding: .utf8)
