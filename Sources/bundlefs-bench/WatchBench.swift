import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import Scanner
import SystemCalls
import TestSupport

/// The watcher's figures: how long a single change takes to reach the catalogue, and how long the
/// catalogue takes to converge after a storm of changes. Runs a real `bundlefs watch` process on a
/// fresh copy of the benchmark tree (the storm changes it).
enum WatchBench {
    struct Figures {
        var latencies: [Double]
        var stormChanges: Int
        var stormSeconds: Double
        var convergeSeconds: Double
        var converged: Bool
        var overflows: Int
    }

    static func run(binary: String, output: String, bundles: Int, changes: Int) throws -> Figures {
        let treeRoot = Paths.join(output, "watch-tree")
        let cataloguePath = Paths.join(output, "watch.sqlite")
        CatalogueFiles.remove(cataloguePath)
        BenchmarkTree(root: treeRoot, bundles: bundles).generate()
        let tree = TreeWriter(root: treeRoot)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["watch", treeRoot]
        var environment = ProcessInfo.processInfo.environment
        environment["BUNDLEFS_CATALOGUE"] = cataloguePath
        process.environment = environment
        let logPath = Paths.join(output, "watch.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        try waitUntil(timeout: 120) { (try? Catalogue(path: cataloguePath, mode: .readOnly).watchStatus()?.state) == .watching }
        let catalogue = try Catalogue(path: cataloguePath, mode: .readOnly)

        // Single changes, one at a time: an Info.plist replaced atomically, a bundle created, a
        // bundle deleted; each timed from the change until the catalogue shows it.
        progress("watching; timing \(changes) single changes")
        var latencies: [Double] = []
        var generator = SeededGenerator(seed: 11)
        for index in 0..<changes {
            let group = "Group\(Int.random(in: 0..<(bundles / 100), using: &generator))"
            let start: Double
            switch index % 3 {
            case 0:
                let target = Int.random(in: 0..<bundles, using: &generator) / 10 * 10 + Int.random(in: 0...2, using: &generator)
                let app = "Group\(target / 100)/App\(target).app"
                guard (try? FileStatus.of(tree.path(app))) != nil else { continue }
                let version = "latency.\(index)"
                tree.plist(app + "/Contents/Info.plist.new", .dictionary([
                    "CFBundleIdentifier": .string(BenchmarkTree.identifier(target)), "CFBundleVersion": .string(version),
                    "CFBundleExecutable": .string("App\(target)"), "CFBundlePackageType": .string("APPL"),
                ]))
                start = Timing.now()
                tree.rename(app + "/Contents/Info.plist.new", app + "/Contents/Info.plist")
                try waitUntil(timeout: 30) { (try? catalogue.bundle(atPath: tree.path(app))?.record.version) == version }
            case 1:
                start = Timing.now()
                tree.macApp("\(group)/Latency\(index).app", identifier: "com.example.latency\(index)")
                try waitUntil(timeout: 30) { (try? catalogue.bundle(atPath: tree.path("\(group)/Latency\(index).app"))) != nil }
            default:
                let previous = index - 1
                let path = tree.path("Group\(0)/Latency\(previous).app")
                let created = (try? catalogue.bundles(matching: BundleQuery(identifier: "com.example.latency\(previous)")).first?.record.key.string) ?? path
                start = Timing.now()
                removeTree(created)
                try waitUntil(timeout: 30) { (try? catalogue.bundle(atPath: created)) == nil }
            }
            latencies.append(Timing.now() - start)
        }

        // A storm: file creations, atomic replaces, renames, new directories, deletions.
        let stormStart = Timing.now()
        var operations = 0
        for index in 0..<8000 {
            tree.text("Group\(index % (bundles / 100))/App\((index % (bundles / 100)) * 100).app/Contents/Resources/storm\(index).txt", "s")
            operations += 1
        }
        for index in 0..<4000 {
            let target = (index * 37) % bundles / 10 * 10
            let app = "Group\(target / 100)/App\(target).app"
            tree.plist(app + "/Contents/Info.plist.new", .dictionary([
                "CFBundleIdentifier": .string(BenchmarkTree.identifier(target)), "CFBundleVersion": .string("storm.\(index)"),
                "CFBundleExecutable": .string("App\(target)"),
            ]))
            tree.rename(app + "/Contents/Info.plist.new", app + "/Contents/Info.plist")
            operations += 2
        }
        for index in 0..<2000 {
            let target = (index * 53) % bundles / 10 * 10 + 1
            let from = "Group\(target / 100)/App\(target).app"
            guard (try? FileStatus.of(tree.path(from))) != nil else { continue }
            tree.rename(from, "Group\(target / 100)/Renamed\(target).app")
            operations += 1
        }
        for index in 0..<1000 { tree.directory("Group\(index % (bundles / 100))/StormFolder\(index)"); operations += 1 }
        for index in 0..<1000 {
            _ = try? FileNameCoding.withCString(tree.path("Group\(index % (bundles / 100))/App\((index % (bundles / 100)) * 100).app/Contents/Resources/storm\(index).txt")) { unlink($0) }
            operations += 1
        }
        var extra = 0
        while operations < 20_000 {
            tree.text("Group\(extra % (bundles / 100))/StormFolder\(extra % 1000)/extra\(extra).txt", "e")
            extra += 1
            operations += 1
        }
        tree.macApp("StormMarker.app", identifier: "com.example.storm.marker")
        let stormEnd = Timing.now()
        let stormEndWall = Date().timeIntervalSince1970
        progress("storm of \(operations) changes written in \(String(format: "%.1f", stormEnd - stormStart)) s; waiting for the catalogue")
        // Converged: the marker is catalogued and the watcher has nothing left to do.
        var lastBatch = 0.0
        try waitUntil(timeout: 600) {
            guard (try? catalogue.bundle(atPath: tree.path("StormMarker.app"))) != nil,
                  let status = try? catalogue.watchStatus(), status.pending == 0, status.state == .watching else { return false }
            lastBatch = status.lastBatchAt ?? 0
            return Date().timeIntervalSince1970 - lastBatch > 0.5
        }
        let convergeSeconds = max(0, lastBatch - stormEndWall)
        let overflows = (try? catalogue.watchStatus()?.overflows) ?? 0
        let converged = (try? CatalogueDump(catalogue)) == (try? freshDump(treeRoot, output: output))
        process.terminate()
        process.waitUntilExit()
        return Figures(latencies: latencies, stormChanges: operations, stormSeconds: stormEnd - stormStart,
                       convergeSeconds: convergeSeconds, converged: converged, overflows: overflows)
    }

    static func waitUntil(timeout: Double, every interval: useconds_t = 250, _ condition: () throws -> Bool) throws {
        let deadline = Timing.now() + timeout
        while try !condition() {
            if Timing.now() > deadline { throw BenchFailure(description: "timed out after \(timeout) s") }
            usleep(interval)
        }
    }

    static func freshDump(_ root: String, output: String) throws -> CatalogueDump {
        let path = Paths.join(output, "watch-fresh.sqlite")
        CatalogueFiles.remove(path)
        let fresh = try Catalogue(path: path, mode: .readWrite)
        _ = try Indexer(catalogue: fresh, options: ScanOptions(distrustWindow: 0)).index(root: FilePath(root))
        return try CatalogueDump(fresh)
    }

}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}
