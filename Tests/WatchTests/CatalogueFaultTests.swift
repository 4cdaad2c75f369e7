import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
@testable import Watcher

/// SPEC.md "Faults": what happens to the catalogue under a running watcher does not end it; it
/// says what is wrong and since when, and the catalogue comes back to the tree's truth.
@Suite struct CatalogueFaultTests {
    /// The JSON `bundlefs status --json` prints, as another process sees it.
    func statusJSON(_ fixture: WatchFixture) throws -> JSONValue {
        try JSONValue.parse(try Subprocess.bundlefs(["status", "--json"], catalogue: fixture.catalogue).standardOutput)
    }

    @Test func aCatalogueLockedByAnotherProcessIsWaitedOut() throws {
        let fixture = WatchFixture()
        fixture.tree.macApp("Apps/Before.app", identifier: "com.example.before")
        let watcher = try fixture.start()
        // Another process takes SQLite's write lock and keeps it until the test lets go.
        let holder = try CatalogueLockHolder(catalogue: fixture.catalogue)
        defer { holder.release() }

        fixture.tree.macApp("Apps/During.app", identifier: "com.example.during")
        try poll(timeout: 30, "the status to say the catalogue is locked") {
            (try? statusJSON(fixture))?["problem"]?.stringValue?.contains("locked") == true
        }
        #expect(watcher.log.contains("another process holds the catalogue locked"), "\(watcher.log)")
        let status = try statusJSON(fixture)
        #expect(status["running"] == .bool(true))
        #expect(status["state"] == .string("retrying"))
        #expect(status["problemSince"] != .null)

        // A lock of minutes: the watcher retries, with backoff, and keeps going.
        try poll(timeout: 60, "the watcher to retry three times") {
            watcher.log.components(separatedBy: "the catalogue is still not current").count > 3
        }
        holder.release()
        #expect(watcher.process.isRunning, "the watcher outlived the lock")
        try fixture.converge("after the lock was released")
        try poll(timeout: 15, "the problem to clear") { (try? statusJSON(fixture))?["problem"] == .null }
        #expect(try statusJSON(fixture)["state"] == .string("watching"))
        #expect(watcher.log.contains("the catalogue is current again"), "\(watcher.log)")
        #expect(try watcher.stop() == 0)
    }

    @Test func aCatalogueDeletedUnderTheWatcherIsRebuilt() throws {
        let fixture = WatchFixture()
        fixture.tree.macApp("Apps/Before.app", identifier: "com.example.before")
        let watcher = try fixture.start()
        // What a user's `rm` does: the database goes, its -wal and -shm stay.
        #expect(unlink(fixture.catalogue) == 0)
        fixture.tree.macApp("Apps/After.app", identifier: "com.example.after")
        try fixture.converge("after the catalogue was deleted")
        #expect(try fixture.identifiers() == ["com.example.after", "com.example.before"])
        #expect(watcher.log.contains("deleted or replaced"), "\(watcher.log)")
        #expect(try FileStatus.of(fixture.catalogue).permissions == 0o600)
        let query = try Subprocess.bundlefs(["query", "com.example.after"], catalogue: fixture.catalogue)
        #expect(query.status == 0 && query.standardOutput.contains("com.example.after"), "\(query)")
        // And it stays current.
        fixture.tree.remove("Apps/Before.app")
        try fixture.converge("a change after the rebuild")
        #expect(try watcher.stop() == 0)
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).watchStatus()?.state == .stopped)
    }

    /// Deleting the catalogue is how a user makes room on a full disk; the deleted file's space
    /// comes back only once the watcher lets go of it, which it must do before making a new one.
    @Test func aCatalogueDeletedOnAFullDiskIsRebuiltInTheSpaceItFreed() throws {
        let fixture = WatchFixture()
        let padding = String(repeating: "p", count: 8_000)
        for index in 0..<200 {
            fixture.tree.macApp("Apps/App\(index).app", identifier: "com.example.app\(index)", info: ["Padding": .string(padding)])
        }
        let disk = try TmpfsMount(at: fixture.directory.appending("cache"), size: "24m")
        let watcher = try fixture.start()
        let filler = disk.fill()
        #expect(disk.available < 64 << 10)
        #expect(unlink(fixture.catalogue) == 0)
        fixture.tree.macApp("Apps/After.app", identifier: "com.example.after")
        try fixture.converge("after the catalogue was deleted on a full disk", timeout: 60)
        #expect(try fixture.identifiers().contains("com.example.after"))
        #expect(watcher.log.contains("deleted or replaced"), "\(watcher.log)")
        #expect(FileManager.default.fileExists(atPath: filler), "no space was freed by hand")
        #expect(try watcher.stop() == 0)
    }

    @Test func aCatalogueReplacedByAnOlderCopyIsBroughtUpToDate() throws {
        let fixture = WatchFixture()
        fixture.tree.macApp("Apps/Old.app", identifier: "com.example.old")
        let backup = fixture.directory.appending("cache/backup.sqlite")
        #expect(try Subprocess.bundlefs(["index", fixture.tree.root], catalogue: backup).status == 0)
        fixture.tree.remove("Apps/Old.app")
        fixture.tree.macApp("Apps/New.app", identifier: "com.example.new")
        let watcher = try fixture.start()
        #expect(rename(backup, fixture.catalogue) == 0) // a restored backup
        fixture.tree.macApp("Apps/Newer.app", identifier: "com.example.newer")
        try fixture.converge("after the catalogue was replaced")
        #expect(try fixture.identifiers() == ["com.example.new", "com.example.newer"])
        #expect(try watcher.stop() == 0)
    }

    @Test func theWatchReserveScalesWithTheKernelLimit() {
        // The reserve is 2% (at least 512) but never more than a quarter of the limit.
        #expect(WatchSettings.watchLimit(kernelLimit: 500) == 375)
        #expect(WatchSettings.watchLimit(kernelLimit: 8192) == 7680)
        #expect(WatchSettings.watchLimit(kernelLimit: 1_048_576) == 1_048_576 - 20_971)
        #expect(WatchSettings.watchLimit(kernelLimit: 0) == 0)
        #expect(WatchSettings.watchLimit(kernelLimit: 3) == 3)
    }
}
