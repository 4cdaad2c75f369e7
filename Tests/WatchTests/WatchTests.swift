import BundleModel
@testable import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A `bundlefs watch` process on a real tree, and the tree beside it.
final class WatchFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let tree: TreeWriter
    let outside: TreeWriter
    var catalogue: String { directory.appending("cache/catalogue.sqlite") }
    var watcher: WatcherProcess?
    /// `--backend` for the watchers this fixture starts; nil: none given (auto, or BUNDLEFS_BACKEND).
    let backend: String?

    /// - Parameter base: where the tree and catalogue go (`$TMPDIR` by default).
    init(backend: String? = nil, base: String? = nil) {
        self.backend = backend
        directory = TemporaryDirectory("watch", base: base)
        tree = TreeWriter(root: directory.appending("tree"))
        outside = TreeWriter(root: directory.appending("outside"))
    }

    @discardableResult
    func start(environment: [String: String] = [:], launcher: String? = nil) throws -> WatcherProcess {
        let watcher = try WatcherProcess(roots: [tree.root], catalogue: catalogue, logFile: directory.appending("watch-\(UInt32.random(in: 0...UInt32.max)).log"),
                                         environment: environment, launcher: launcher, arguments: backend.map { ["--backend", $0] } ?? [])
        self.watcher = watcher
        try watcher.waitUntilWatching()
        let used = watcher.status()?.backend
        if let backend, used != backend { throw WatcherFailure("asked for \(backend), the watcher uses \(used ?? "no backend")") }
        return watcher
    }

    func converge(_ context: String, timeout: Double = 30) throws {
        try waitForConvergence(catalogue: catalogue, root: tree.root, timeout: timeout, context)
    }

    func id(of relative: String) throws -> Int64? {
        try Catalogue(path: catalogue, mode: .readOnly).bundle(atPath: tree.path(relative))?.id
    }

    func identifiers() throws -> [String] {
        try Catalogue(path: catalogue, mode: .readOnly).bundles(matching: BundleQuery()).compactMap(\.record.identifier).sorted()
    }
}

/// The backends every convergence test runs on (the tests run as root, who may use fanotify).
let watchBackends = ["fanotify", "inotify"]

@Suite(.serialized) struct WatchTests {
    @Test(arguments: watchBackends) func everyKindOfChangeConverges(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        let tree = fixture.tree
        tree.macApp("Apps/Chess.app", identifier: "com.example.chess", info: ["CFBundleName": .string("Chess")],
                    localizedStrings: ["de": ["CFBundleDisplayName": "Schach"]])
        tree.text("Folders/A/B/C/readme.txt", "x")
        tree.macApp("Folders/A/B/C/Deep.app", identifier: "com.example.deep")
        tree.macApp("Folders/A/B/Other.app", identifier: "com.example.other")
        tree.text("Documents/Doc.pkgdoc/index.xml", "<doc/>")
        try fixture.start()
        try fixture.converge("initial index")

        tree.macApp("Apps/New.app", identifier: "com.example.new")
        try fixture.converge("create")
        #expect(try fixture.identifiers().contains("com.example.new"))

        tree.plist("Apps/Chess.app/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.chess.edited"), "CFBundleExecutable": .string("Chess"),
        ]))
        try fixture.converge("edit in place")
        #expect(try fixture.identifiers().contains("com.example.chess.edited"))

        // An editor's atomic replace: write a temporary file, rename it over the original. One
        // update of the same row: the bundle is never removed and added back.
        let chessID = try fixture.id(of: "Apps/Chess.app")
        tree.plist("Apps/Chess.app/Contents/Info.plist.tmp", .dictionary([
            "CFBundleIdentifier": .string("com.example.chess.replaced"), "CFBundleExecutable": .string("Chess"),
        ]))
        tree.rename("Apps/Chess.app/Contents/Info.plist.tmp", "Apps/Chess.app/Contents/Info.plist")
        try fixture.converge("atomic replace")
        #expect(try fixture.identifiers().contains("com.example.chess.replaced"))
        #expect(try fixture.id(of: "Apps/Chess.app") == chessID)

        tree.strings("Apps/Chess.app/Contents/Resources/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Schachspiel"])
        try fixture.converge("InfoPlist.strings edited")

        tree.remove("Apps/New.app")
        try fixture.converge("delete")

        // A renamed subtree keeps its rows (moved by one UPDATE), not forgotten and rescanned.
        let deepID = try fixture.id(of: "Folders/A/B/C/Deep.app")
        tree.rename("Folders/A", "Folders/Renamed")
        try fixture.converge("rename of a grandparent of bundles")
        #expect(try fixture.id(of: "Folders/Renamed/B/C/Deep.app") == deepID)
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Folders/Renamed/B/C/Deep.app")) != nil)

        tree.rename("Folders/Renamed/B/Other.app", "Folders/Renamed/B/Other.folder")
        try fixture.converge("a bundle renamed to a name that is no longer a package")

        let moveOut = Paths.join(fixture.outside.root, "B")
        try FileNameCoding.withCString(tree.path("Folders/Renamed/B")) { from in
            try FileNameCoding.withCString(moveOut) { #expect(Glibc.rename(from, $0) == 0) }
        }
        try fixture.converge("move out of the tree")
        #expect(try !fixture.identifiers().contains("com.example.deep"))
        // The moved-out folder is not watched any more: changing it changes nothing here.
        fixture.outside.macApp("B/Ghost.app", identifier: "com.example.ghost")
        try FileNameCoding.withCString(moveOut) { from in
            try FileNameCoding.withCString(tree.path("Folders/Back")) { #expect(Glibc.rename(from, $0) == 0) }
        }
        try fixture.converge("move back in")
        #expect(try fixture.identifiers().contains("com.example.ghost"))

        // Claims: an application that claims pkgdoc appears, then goes.
        tree.macApp("Apps/Editor.app", identifier: "com.example.editor", info: [
            "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("pkgdoc")]), "LSTypeIsPackage": .bool(true)])]),
        ])
        try fixture.converge("a claiming application appears")
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Doc.pkgdoc"))?.record.packageReasons == .claimed)
        tree.remove("Apps/Editor.app")
        try fixture.converge("the claiming application goes")
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Doc.pkgdoc")) == nil)

        // Finder info: an extended attribute on a folder, then an AppleDouble sidecar on another.
        tree.text("Documents/Album/photo.txt", "p")
        try fixture.converge("a new folder")
        tree.setAttribute("Documents/Album", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x20))
        try fixture.converge("FinderInfo xattr set")
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Album"))?.record.packageReasons == .finderBit)
        tree.text("Documents/Stack/item.txt", "s")
        try fixture.converge("another folder")
        tree.file("Documents/._Stack", FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20)))
        try fixture.converge("AppleDouble sidecar written")
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Stack")) != nil)

        #expect(try fixture.watcher!.stop() == 0)
    }

    @Test(arguments: watchBackends) func seededRandomStormConverges(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        var generator = SeededGenerator(seed: 0x57_0213)
        var folders = ["F0"]
        fixture.tree.directory("F0")
        try fixture.start()
        for step in 0..<400 {
            let choice = Int.random(in: 0..<100, using: &generator)
            let folder = folders.randomElement(using: &generator)!
            switch choice {
            case 0..<25:
                let new = folder + "/F\(step)"
                fixture.tree.directory(new)
                folders.append(new)
            case 25..<45:
                fixture.tree.macApp(folder + "/App\(step).app", identifier: "com.example.storm\(step)")
            case 45..<55:
                fixture.tree.text(folder + "/file\(step).txt", "\(step)")
            case 55..<85:
                // Rename or move a folder (never into itself) together with everything below it.
                guard folder != "F0" else { continue }
                let target = folders.randomElement(using: &generator)!
                guard !target.hasPrefix(folder + "/"), target != folder else { continue }
                let destination = target + "/M\(step)"
                fixture.tree.rename(folder, destination)
                folders = folders.map { $0 == folder ? destination : $0.hasPrefix(folder + "/") ? destination + $0.dropFirst(folder.count) : $0 }
            default:
                guard folder != "F0" else { continue }
                fixture.tree.remove(folder)
                folders.removeAll { $0 == folder || $0.hasPrefix(folder + "/") }
            }
        }
        try fixture.converge("after 400 random operations", timeout: 60)
        #expect(try fixture.watcher!.stop() == 0)
    }

    @Test(arguments: watchBackends) func queueOverflowIsRecoveredFrom(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        for index in 0..<20 { fixture.tree.directory("D\(index)") }
        let watcher = try fixture.start()
        watcher.signal(SIGSTOP)
        // 20,000 changes while the watcher cannot read: the kernel's queue (16,384) overflows.
        for index in 0..<10_000 { fixture.tree.text("D\(index % 20)/file\(index).txt", "x") }
        for index in 0..<5_000 { fixture.tree.directory("D\(index % 20)/sub\(index)") }
        for index in 0..<200 { fixture.tree.macApp("D\(index % 20)/sub\(index)/App\(index).app", identifier: "com.example.overflow\(index)") }
        for index in 0..<4_000 { fixture.tree.remove("D\(index % 20)/file\(index).txt") }
        watcher.signal(SIGCONT)
        try fixture.converge("after an overflow", timeout: 90)
        // The rescan's log line may trail the rows it wrote.
        try poll(timeout: 30, "the log to tell of the overflow") { watcher.log.contains("overflowed") }
        // The status row is written on its own schedule, not with every batch.
        try poll(timeout: 30, "the status to count the overflow") { (watcher.status()?.overflows ?? 0) >= 1 }
        #expect(try watcher.stop() == 0)
    }

    /// Five starts, each killed at a chosen point of its crawl: when the watcher has spent so
    /// much CPU (the kernel's count, which load does not move as it moves a sleep), from before
    /// its status row exists to well into its crawl.
    @Test(arguments: watchBackends) func killedDuringTheInitialCrawlStaysConsistentAndConverges(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        let bundles = 600
        BenchmarkTree(root: fixture.tree.root, bundles: bundles).generate()
        var interrupted = 0
        for (round, seconds) in [0.05, 0.15, 0.25, 0.35, 0.5].enumerated() {
            let watcher = try WatcherProcess(roots: [fixture.tree.root], catalogue: fixture.catalogue, logFile: fixture.directory.appending("kill\(round).log"),
                                             arguments: ["--backend", backend])
            try poll(timeout: 300, "round \(round): the watcher to spend \(seconds) s of CPU") {
                guard watcher.process.isRunning else { throw WatcherFailure("round \(round): the watcher exited:\n\(watcher.log)") }
                if (processorSeconds(of: watcher.pid) ?? 0) >= seconds { return true }
                // A crawl that ended first is killed while it watches.
                return watcher.status().map { $0.pid == watcher.pid && $0.state == .watching } ?? false
            }
            watcher.signal(SIGKILL)
            _ = try watcher.stop(SIGKILL)
            let catalogue = try Catalogue(path: fixture.catalogue, mode: .readWrite)
            let check = try catalogue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            #expect(check == ["ok"], "round \(round)")
            let foreignKeys = try catalogue.read { db in try Int.fetchAll(db, sql: "SELECT 1 FROM pragma_foreign_key_check") }
            #expect(foreignKeys.isEmpty, "round \(round)")
            if try catalogue.watchStatus()?.state != .watching { interrupted += 1 }
        }
        // The kills are what the test is about: at least one must have cut a crawl short.
        #expect(interrupted > 0, "every kill came after the crawl of \(bundles) bundles had ended")
        try fixture.start()
        try fixture.converge("after five kills", timeout: 60)
        #expect(try fixture.watcher!.stop() == 0)
    }

    @Test(arguments: watchBackends) func changesWhileStoppedAreFoundAtTheNextStart(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        let tree = fixture.tree
        tree.macApp("Apps/Keep.app", identifier: "com.example.keep")
        tree.macApp("Apps/Edit.app", identifier: "com.example.edit")
        tree.macApp("Apps/Gone.app", identifier: "com.example.gone")
        tree.macApp("Deep/A/Moved.app", identifier: "com.example.moved")
        try fixture.start()
        try fixture.converge("first start")
        #expect(try fixture.watcher!.stop() == 0)
        // An in-place edit changes no directory's ctime: found through the file's stamp.
        let info = tree.path("Apps/Edit.app/Contents/Info.plist")
        let fd = try Descriptor.open(info, flags: O_WRONLY | O_TRUNC)
        let replacement = PropertyListWriter.xml(.dictionary(["CFBundleIdentifier": .string("com.example.edited"), "CFBundleExecutable": .string("Edit")]))
        #expect(replacement.withUnsafeBytes { Glibc.write(fd.rawValue, $0.baseAddress, $0.count) } == replacement.count)
        tree.remove("Apps/Gone.app")
        tree.rename("Deep/A", "Deep/B")
        tree.macApp("Apps/Added.app", identifier: "com.example.added")
        try fixture.start()
        try fixture.converge("second start")
        #expect(try fixture.identifiers() == ["com.example.added", "com.example.edited", "com.example.keep", "com.example.moved"])
        #expect(try fixture.watcher!.stop() == 0)
    }

    /// inotify's own: fanotify has no watch per directory, hence no limit.
    @Test func atTheWatchLimitUnwatchedDirectoriesAreRescanned() throws {
        let fixture = WatchFixture(backend: "inotify")
        for index in 0..<30 { fixture.tree.macApp("Group\(index % 3)/App\(index).app", identifier: "com.example.limit\(index)") }
        let watcher = try fixture.start(environment: ["BUNDLEFS_WATCH_LIMIT": "12", "BUNDLEFS_RESCAN_INTERVAL": "0.3"])
        let status = try #require(watcher.status())
        let directories = try Catalogue(path: fixture.catalogue, mode: .readOnly).counts(under: FilePath(fixture.tree.root)).directories
        #expect(status.watchedDirectories == 12)
        #expect(status.unwatchedDirectories == directories - 12)
        #expect(watcher.log.contains("watch limit"))
        // Changes deep in directories that have no watch.
        fixture.tree.macApp("Group2/App29.app/Contents/PlugIns/New.plugin", identifier: "com.example.newplugin")
        fixture.tree.plist("Group1/App4.app/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.limit4.edited")]))
        fixture.tree.remove("Group0/App3.app")
        fixture.tree.macApp("Group3/App99.app", identifier: "com.example.limit99")
        try fixture.converge("through periodic rescans")
        let statusText = try Subprocess.bundlefs(["status"], catalogue: fixture.catalogue)
        #expect(statusText.standardOutput.contains("unwatched:"))
        // Idle, with a rescan of the unwatched directories every 0.3 s: the counts stay true, and
        // no events come (asking the kernel for watches over the limit would queue IN_IGNORED),
        // across several of those rescans, counted by the daemon.
        func statusWritten(after moment: Double) throws -> WatchStatus {
            try poll(timeout: 10, "a status written after \(moment)") { (watcher.status()?.updatedAt ?? 0) > moment }
            return try #require(watcher.status())
        }
        let idle = try statusWritten(after: Date().timeIntervalSince1970)
        var later = idle
        try poll(timeout: 30, "three rescans after \(idle.rescans)") {
            later = try statusWritten(after: later.updatedAt)
            return later.rescans >= idle.rescans + 3
        }
        let now = try Catalogue(path: fixture.catalogue, mode: .readOnly).counts(under: FilePath(fixture.tree.root)).directories
        #expect(later.events == idle.events, "events while idle")
        #expect(later.pending == 0)
        #expect(later.watchedDirectories <= 12)
        #expect(later.watchedDirectories + later.unwatchedDirectories == now)
        // Those periodic rescans are rescans: the counter says so (it stayed at 0).
        #expect(later.rescans > idle.rescans, "rescans \(idle.rescans) then \(later.rescans)")
        // The unwatched count changed with the tree; the warning was still said once.
        #expect(later.unwatchedDirectories != status.unwatchedDirectories)
        #expect(watcher.log.components(separatedBy: "watch limit").count == 2, "\(watcher.log)")
        #expect(try watcher.stop() == 0)
    }

    @Test(arguments: watchBackends) func stopsCleanlyOnSIGINTAndRefusesASecondWatcher(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        let watcher = try fixture.start()
        let second = try Subprocess.bundlefs(["watch", fixture.tree.root], catalogue: fixture.catalogue)
        #expect(second.status == 1)
        #expect(second.standardError.contains("already keeping"))
        #expect(try watcher.stop(SIGINT) == 0)
        #expect(watcher.status()?.state == .stopped)
        let status = try Subprocess.bundlefs(["status", "--json"], catalogue: fixture.catalogue)
        #expect(try JSONValue.parse(status.standardOutput)["running"] == .bool(false))
    }

    @Test(arguments: watchBackends) func itsOwnCatalogueWritesDoNotWakeIt(backend: String) throws {
        let fixture = WatchFixture(backend: backend)
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        // The catalogue lives inside the watched tree.
        let watcher = try WatcherProcess(roots: [fixture.tree.root], catalogue: fixture.tree.path(".cache/bundlefs/catalogue.sqlite"),
                                         logFile: fixture.directory.appending("self.log"), arguments: ["--backend", backend])
        try watcher.waitUntilWatching()
        fixture.tree.macApp("B.app", identifier: "com.example.b")
        try poll(timeout: 10, "B.app to be catalogued") {
            (try? Catalogue(path: watcher.catalogue, mode: .readOnly).bundles(matching: BundleQuery(identifier: "com.example.b")).count) == 1
        }
        // Its writes (each batch's, each status row) queue no event, counted: two directories made
        // one after the other, one IN_CREATE each. Once the first is catalogued, every event queued
        // before it was counted; the second's batch then counts its own event and nothing its
        // writes in between queued.
        func directories() throws -> Int {
            try Catalogue(path: watcher.catalogue, mode: .readOnly).counts(under: FilePath(fixture.tree.root)).directories
        }
        func made(_ name: String) throws -> WatchStatus {
            let known = try directories()
            fixture.tree.directory(name)
            try poll(timeout: 10, "\(name) to be catalogued") { try directories() == known + 1 }
            let moment = Date().timeIntervalSince1970
            try poll(timeout: 10, "a status written after \(name)'s batch") { watcher.status().map { $0.updatedAt > moment && $0.pending == 0 } == true }
            return try #require(watcher.status())
        }
        let first = try made("First")
        let second = try made("Second")
        #expect(second.events == first.events + 1, "events \(first.events) then \(second.events)")
        #expect(second.batches == first.batches + 1, "batches \(first.batches) then \(second.batches)")
        #expect(try watcher.stop() == 0)
    }
}

/// The CPU seconds a process has spent (utime and stime in /proc/PID/stat), nil once it is gone.
func processorSeconds(of pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
    // The fields after the name: state is the first, utime the twelfth, stime the thirteenth.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
