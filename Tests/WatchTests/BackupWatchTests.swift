import BundleModel
import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// The watcher follows a Time Machine backup (rule 34): a snapshot that completes (the history
/// rewritten) changes its record within the watcher's latency; bands written by a running backup
/// do not make it read again, band by band (`BundleStructure.inert`).
@Suite(.serialized) struct BackupWatchTests {
    @Test func aNewSnapshotChangesTheBackupAndBandsAloneDoNot() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        var backup = TreeWriter.Backup()
        backup.bands = 2_000
        backup.snapshots = [810_000_000]
        tree.timeMachineBackup("TM/Mac.sparsebundle", backup)
        try fixture.start()
        try fixture.converge("initial index")
        func read() throws -> TimeMachineBackup? {
            try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("TM/Mac.sparsebundle"))?.record.backup
        }
        #expect(try read()?.bands == 2_000)

        // A backup running: bands added and rewritten. Then an application: once it is
        // catalogued, the watcher has taken every event written before it.
        for band in 2_000..<2_300 { tree.file("TM/Mac.sparsebundle/bands/" + String(band, radix: 16), [1, 2, 3]) }
        for band in 0..<100 { tree.file("TM/Mac.sparsebundle/bands/" + String(band, radix: 16), [UInt8](repeating: 7, count: 8_192)) }
        tree.macApp("Apps/Marker.app", identifier: "org.example.marker")
        try poll(timeout: 10, "the marker application") {
            try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Apps/Marker.app")) != nil
        }
        #expect(try read()?.bands == 2_000)
        #expect(try read()?.snapshots == 1)
        // Nor its lock and token, which a running backup writes beside them.
        tree.text("TM/Mac.sparsebundle/lock", "")
        tree.text("TM/Mac.sparsebundle/token", "t")
        tree.macApp("Apps/Lock Marker.app", identifier: "org.example.lock-marker")
        try poll(timeout: 10, "the lock marker application") {
            try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Apps/Lock Marker.app")) != nil
        }
        #expect(try read()?.bands == 2_000)

        // The backup completes: the history is rewritten, and the record reads it, bands and all.
        tree.snapshotHistory("TM/Mac.sparsebundle", [810_000_000, 810_086_400])
        try poll(timeout: 10, "the new snapshot: \(String(describing: try? read()))") { try read()?.lastSnapshot == 810_086_400 }
        #expect(try read()?.snapshots == 2)
        #expect(try read()?.bands == 2_300)
        try fixture.converge("after the snapshot")
        #expect(try fixture.watcher!.stop() == 0)

        // Started again, the watcher knows the backup from the catalogue: its bands stay inert.
        try fixture.start()
        for band in 2_300..<2_350 { tree.file("TM/Mac.sparsebundle/bands/" + String(band, radix: 16), [1]) }
        tree.macApp("Apps/Second Marker.app", identifier: "org.example.marker2")
        try poll(timeout: 10, "the second marker application") {
            try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Apps/Second Marker.app")) != nil
        }
        #expect(try read()?.bands == 2_300)
        #expect(try fixture.watcher!.stop() == 0)
    }
}
