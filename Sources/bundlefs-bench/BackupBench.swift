import BundleModel
import Catalogue
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// A Time Machine backup of 200,000 bands (rule 34): what reading one costs the index (against
/// `du -s` of the same tree, which also lists and stats every band, and `find`, which only lists
/// them), the watcher's memory with it present, and how long a completed
/// snapshot takes to reach the catalogue (the backup read again: one listing and 200,000 `fstatat`).
/// The bands are empty files, so the tree costs inodes, not gigabytes (`bench-out/backup-tree`,
/// written once).
enum BackupBench {
    static let bands = 200_000

    static func run(binary: String, output: String, runs: Int, report: inout Report) throws {
        let root = Paths.join(output, "backup-tree")
        let marker = Paths.join(root, ".bundlefs-bench-backup")
        if (try? String(contentsOfFile: marker, encoding: .utf8)) != "1 \(bands)\n" {
            progress("writing a backup of \(bands) bands ...")
            removeTree(root)
            var backup = TreeWriter.Backup()
            backup.bands = bands
            backup.bandBytes = 0
            let tree = TreeWriter(root: root)
            tree.timeMachineBackup("Mac.sparsebundle", backup)
            tree.text(".bundlefs-bench-backup", "1 \(bands)\n")
        }
        let catalogue = Paths.join(output, "backup.sqlite")
        var index = PairedSamples()
        var find: [Double] = []
        _ = Timing.run("/usr/bin/du", ["-s", root])
        for _ in 0..<max(3, runs) {
            index.native.append(Timing.run("/usr/bin/du", ["-s", root]))
            find.append(Timing.run("/usr/bin/find", [root]))
            CatalogueFiles.remove(catalogue)
            index.view.append(Timing.run(binary, ["index", root], environment: ["BUNDLEFS_CATALOGUE": catalogue]))
        }
        let label = "backup of \(bands.formatted()) bands"
        report.add("\(label): initial index", seconds: index.viewMedian, against: "du -s", baselineSeconds: index.nativeMedian, goal: "≤ 1.5x")
        report.notes.append("\(label): index \(PairedSamples.describe(index.view)), du -s \(PairedSamples.describe(index.native)), "
                            + "find \(PairedSamples.describe(find)) (alternating runs)")

        let watcher = try WatcherProcess(roots: [root], catalogue: catalogue, logFile: Paths.join(output, "backup-watch.log"),
                                         environment: ["BUNDLEFS_BINARY": binary])
        defer { _ = try? watcher.stop() }
        try watcher.waitUntilWatching(timeout: 300)
        report.add("\(label): `watch` memory", value: ProcessMemory(pid: watcher.pid).summary, goal: "< 150 MB")
        let reader = try Catalogue(path: catalogue, mode: .readOnly)
        var latencies: [Double] = []
        for snapshot in 0..<max(3, runs) {
            let completed = 820_000_000 + Double(snapshot) * 3_600
            let start = Timing.now()
            TreeWriter(root: root).snapshotHistory("Mac.sparsebundle", [815_000_000, completed])
            let deadline = start + 60
            while (try? reader.bundle(atPath: Paths.join(root, "Mac.sparsebundle"))?.record.backup?.lastSnapshot) != completed {
                guard Timing.now() < deadline else { throw BenchFailure(description: "the snapshot did not reach the catalogue in 60 s") }
                usleep(500)
            }
            latencies.append(Timing.now() - start)
        }
        report.add("\(label): a completed snapshot to catalogue", value: String(format: "%.0f ms (median of %d)", PairedSamples.median(latencies) * 1000, latencies.count),
                   goal: "< 500 ms")
    }
}
