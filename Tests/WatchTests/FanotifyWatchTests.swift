import BundleModel
import Codecs
@testable import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// What only the fanotify backend does: one mark for a whole filesystem, so events elsewhere on it
/// reach the watcher and must be dropped, renames come as one event, and a process without
/// CAP_SYS_ADMIN cannot have it. (The convergence tests of `WatchTests` run on both backends.)
@Suite(.serialized) struct FanotifyWatchTests {
    @Test func renamesAcrossDirectoriesKeepTheirRows() throws {
        let fixture = WatchFixture(backend: "fanotify")
        fixture.tree.macApp("A/Chess.app", identifier: "com.example.chess")
        fixture.tree.macApp("A/Sub/Deep/Inner.app", identifier: "com.example.inner")
        fixture.tree.directory("B/C")
        try fixture.start()
        try fixture.converge("first index")
        // Rows made after them: a moved bundle removed and found again would not get its number back.
        fixture.tree.macApp("Z/Later.app", identifier: "com.example.later")
        try fixture.converge("a later bundle")
        let chess = try fixture.id(of: "A/Chess.app")
        let inner = try fixture.id(of: "A/Sub/Deep/Inner.app")
        // A bundle and a subtree moved into other directories: one rename event each (FAN_RENAME),
        // so their rows move with them instead of being removed and found again.
        fixture.tree.rename("A/Chess.app", "B/C/Chess.app")
        fixture.tree.rename("A/Sub", "B/Sub")
        try fixture.converge("moved across directories")
        #expect(try fixture.id(of: "B/C/Chess.app") == chess)
        #expect(try fixture.id(of: "B/Sub/Deep/Inner.app") == inner)
        #expect(try fixture.watcher!.stop() == 0)
    }

    @Test func subtreesMovedOutAreForgottenAndMovedInAreFound() throws {
        let filesystem = try OwnFilesystem()
        filesystem.tree.macApp("Away/Leaving.app", identifier: "com.example.leaving")
        filesystem.outside.macApp("Coming/Arriving.app", identifier: "com.example.arriving")
        let watcher = try filesystem.start()
        try filesystem.converge("first index")
        try move(filesystem.tree.path("Away"), to: filesystem.outside.path("Away"))
        try move(filesystem.outside.path("Coming"), to: filesystem.tree.path("Coming"))
        try filesystem.converge("moved out and in")
        #expect(try filesystem.identifiers() == ["com.example.arriving"])
        // The subtree moved out is under the same mark: what happens in it now is outside the
        // roots, dropped (and counted) without a batch.
        let before = try filesystem.caughtUp(watcher)
        for index in 0..<50 { filesystem.outside.text("Away/Leaving.app/Contents/file\(index).txt", "x") }
        try poll(timeout: 30, "the 50 writes outside to be dropped") { (watcher.status()?.eventsOutside ?? 0) >= before.eventsOutside + 50 }
        #expect(watcher.status()?.batches == before.batches)
        try filesystem.converge("after writes in the moved-out subtree")
        #expect(try watcher.stop() == 0)
    }

    @Test func anUnrelatedWriterElsewhereOnTheFilesystemChangesNothing() throws {
        let filesystem = try OwnFilesystem()
        filesystem.tree.macApp("Apps/Keep.app", identifier: "com.example.keep")
        let watcher = try filesystem.start()
        try filesystem.converge("first index")
        let catalogued = try CatalogueDump(Catalogue(path: filesystem.catalogue, mode: .readOnly))
        let before = try filesystem.caughtUp(watcher)
        // 2,000 files created and removed beside the tree: events the mark reports (only this test
        // writes on this filesystem), at least one for each name (the kernel may merge the events
        // of one name while they wait), that the watcher must drop.
        for index in 0..<2_000 {
            filesystem.outside.text("busy/file\(index).txt", "\(index)")
            filesystem.outside.remove("busy/file\(index).txt")
        }
        try poll(timeout: 60, "the writer's events to be read and dropped") { (watcher.status()?.eventsOutside ?? 0) >= before.eventsOutside + 2_000 }
        let after = try #require(watcher.status())
        #expect(after.batches == before.batches)
        #expect(after.events == before.events)
        #expect(try CatalogueDump(Catalogue(path: filesystem.catalogue, mode: .readOnly)) == catalogued)
        #expect(try watcher.stop() == 0)
    }

    /// The catalogue's `watch_status` row says how the tree is watched, as the published status
    /// does: `status --json` of a reader that has only the catalogue shows the backend, the
    /// subtrees left to inotify and the events dropped outside the roots.
    @Test func theCataloguesRowCarriesTheBackend() throws {
        let filesystem = try OwnFilesystem()
        filesystem.tree.macApp("Apps/Keep.app", identifier: "com.example.keep")
        let watcher = try filesystem.start()
        for index in 0..<50 { filesystem.outside.text("busy/file\(index).txt", "x") }
        try poll(timeout: 30, "the row to count the writes outside") {
            (try? Catalogue(path: filesystem.catalogue, mode: .readOnly).watchStatus()?.eventsOutside) ?? 0 >= 50
        }
        #expect(try watcher.stop() == 0)
        // Without the lock file, where the status is published, `status` reads the row.
        #expect(unlink(Catalogue.lockPath(catalogue: FilePath(filesystem.catalogue)).string) == 0)
        let shown = try Subprocess.bundlefs(["status", "--json"], catalogue: filesystem.catalogue)
        #expect(shown.status == 0, "\(shown)")
        let json = try JSONValue.parse(shown.standardOutput)
        #expect(json["backend"] == .string("fanotify"))
        #expect(json["inotifySubtrees"] == .array([]))
        guard case let .integer(outside)? = json["eventsOutside"] else { Issue.record("no eventsOutside: \(shown.standardOutput)"); return }
        #expect(outside >= 50)
    }

    @Test func aQueueOverflowIsARescan() throws {
        let limit = "/proc/sys/fs/fanotify/max_queued_events"
        let saved = try String(contentsOfFile: limit, encoding: .utf8)
        // The group takes the limit when it is made: lowered only while the watcher starts.
        try "64\n".write(toFile: limit, atomically: false, encoding: .utf8)
        let fixture = WatchFixture(backend: "fanotify")
        for index in 0..<4 { fixture.tree.directory("D\(index)") }
        let watcher: WatcherProcess
        do {
            defer { try? saved.write(toFile: limit, atomically: false, encoding: .utf8) }
            watcher = try fixture.start()
        }
        watcher.signal(SIGSTOP)
        for index in 0..<300 { fixture.tree.text("D\(index % 4)/file\(index).txt", "x") }
        for index in 0..<20 { fixture.tree.macApp("D\(index % 4)/App\(index).app", identifier: "com.example.overflow\(index)") }
        watcher.signal(SIGCONT)
        try fixture.converge("after an overflow", timeout: 90)
        try poll(timeout: 30, "the status to count the overflow") { (watcher.status()?.overflows ?? 0) >= 1 }
        #expect(watcher.log.contains("overflowed"))
        #expect(try watcher.stop() == 0)
    }

    /// One root on the disk (/var/tmp, not `$TMPDIR`, which `.ci/run-tests` makes a tmpfs), one on a tmpfs.
    @Test func twoRootsOnTwoFilesystems() throws {
        let fixture = WatchFixture(backend: "fanotify", base: "/var/tmp")
        let tmpfs = try TmpfsMount(at: fixture.directory.appending("tmpfs"), size: "64m")
        let second = TreeWriter(root: Paths.join(tmpfs.path, "tree"))
        fixture.tree.macApp("Disk.app", identifier: "com.example.disk")
        second.macApp("Memory.app", identifier: "com.example.memory")
        let watcher = try WatcherProcess(roots: [fixture.tree.root, second.root], catalogue: fixture.catalogue,
                                         logFile: fixture.directory.appending("two.log"), arguments: ["--backend", "fanotify"])
        try watcher.waitUntilWatching()
        let status = try #require(watcher.status())
        #expect(status.backend == "fanotify")
        #expect(status.inotifySubtrees == [])
        fixture.tree.macApp("Disk2.app", identifier: "com.example.disk2")
        second.macApp("Memory2.app", identifier: "com.example.memory2")
        second.remove("Memory.app")
        try waitForConvergence(catalogue: fixture.catalogue, roots: [fixture.tree.root, second.root], "changes on both filesystems")
        #expect(try fixture.identifiers() == ["com.example.disk", "com.example.disk2", "com.example.memory2"])
        #expect(try watcher.stop() == 0)
    }

    @Test func aSubtreeOnAFilesystemWithoutHandlesIsWatchedWithInotify() throws {
        let fixture = WatchFixture(backend: "fanotify")
        fixture.tree.macApp("Disk.app", identifier: "com.example.disk")
        // ramfs gives no file handles (and cannot be marked): the subtree mounted there is left to inotify.
        let ram = fixture.tree.directory("Ram")
        let mounted = try Subprocess.run("/usr/bin/mount", ["-t", "ramfs", "ramfs", ram])
        try #require(mounted.status == 0, "\(mounted)")
        defer { _ = try? Subprocess.run("/usr/bin/umount", ["-l", ram]) }
        try withExtendedLifetime(fixture) {
            fixture.tree.macApp("Ram/Inside.app", identifier: "com.example.inside")
            let watcher = try fixture.start()
            let status = try #require(watcher.status())
            #expect(status.backend == "fanotify")
            #expect(status.inotifySubtrees == ["\(ram) (no file handles)"])
            #expect(try Subprocess.bundlefs(["status"], catalogue: fixture.catalogue).standardOutput.contains("inotify for \(ram)"))
            fixture.tree.macApp("Ram/Later.app", identifier: "com.example.later")
            fixture.tree.remove("Ram/Inside.app")
            fixture.tree.macApp("Disk2.app", identifier: "com.example.disk2")
            try fixture.converge("changes on both filesystems")
            #expect(try fixture.identifiers() == ["com.example.disk", "com.example.disk2", "com.example.later"])
            #expect(try watcher.stop() == 0)
        }
    }

    @Test func anUnprivilegedUserGetsInotifyOrAClearError() throws {
        let user = try SystemUser()
        let fixture = WatchFixture()
        chmod(fixture.directory.path, 0o755)
        fixture.tree.macApp("Apps/Mine.app", identifier: "com.example.mine")
        try FileManager.default.createDirectory(atPath: fixture.directory.appending("cache"), withIntermediateDirectories: true)
        #expect(chown(fixture.directory.appending("cache"), user.userID, user.groupID) == 0)

        let refused = try user.run(Subprocess.bundlefs, ["watch", fixture.tree.root, "--backend", "fanotify"],
                                   environment: ["BUNDLEFS_CATALOGUE": fixture.catalogue, "HOME": "/nonexistent"])
        #expect(refused.status != 0)
        let message = refused.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!message.contains("\n"), "one line: \(message)")
        #expect(message.contains("--backend fanotify") && message.contains("CAP_SYS_ADMIN"), "\(message)")

        // auto: inotify, said in the log and in the status.
        let launcher = fixture.directory.appending("as-user.sh")
        // setpriv executes the watcher in its place (runuser would stay its parent, and signals for
        // the watcher would reach runuser).
        try "#!/bin/sh\nexec /usr/bin/setpriv --reuid=\(user.userID) --regid=\(user.groupID) --clear-groups \"$@\"\n"
            .write(toFile: launcher, atomically: false, encoding: .utf8)
        chmod(launcher, 0o755)
        let watcher = try fixture.start(environment: ["HOME": "/nonexistent"], launcher: launcher)
        #expect(watcher.status()?.backend == "inotify")
        #expect(watcher.log.contains("with inotify"))
        let json = try Subprocess.bundlefs(["status", "--json"], catalogue: fixture.catalogue)
        #expect(try JSONValue.parse(json.standardOutput)["backend"] == .string("inotify"))
        fixture.tree.macApp("Apps/New.app", identifier: "com.example.new")
        try fixture.converge("changes seen through inotify")
        #expect(try watcher.stop() == 0)
    }

    private func move(_ from: String, to: String) throws {
        try FileNameCoding.withCString(from) { from in
            try FileNameCoding.withCString(to) { #expect(Glibc.rename(from, $0) == 0) }
        }
    }
}

/// A tree and its surroundings on a tmpfs of their own, the catalogue elsewhere: every event the
/// mark reports comes from what the test does there.
final class OwnFilesystem: @unchecked Sendable {
    // Released in this order: the mount first, so the directory's removal finds its `fs` empty.
    let mount: TmpfsMount
    let directory = TemporaryDirectory("fanotify")
    let tree: TreeWriter
    let outside: TreeWriter
    var catalogue: String { directory.appending("cache/catalogue.sqlite") }

    init() throws {
        mount = try TmpfsMount(at: directory.appending("fs"), size: "256m")
        tree = TreeWriter(root: Paths.join(mount.path, "tree"))
        outside = TreeWriter(root: Paths.join(mount.path, "outside"))
    }

    func start() throws -> WatcherProcess {
        let watcher = try WatcherProcess(roots: [tree.root], catalogue: catalogue, logFile: directory.appending("watch.log"), arguments: ["--backend", "fanotify"])
        try watcher.waitUntilWatching()
        return watcher
    }

    func converge(_ context: String) throws { try waitForConvergence(catalogue: catalogue, root: tree.root, context) }

    func identifiers() throws -> [String] {
        try Catalogue(path: catalogue, mode: .readOnly).bundles(matching: BundleQuery()).compactMap(\.record.identifier).sorted()
    }

    /// The status once every event read is processed and published after that.
    func caughtUp(_ watcher: WatcherProcess) throws -> WatchStatus {
        let moment = Date().timeIntervalSince1970
        try poll(timeout: 30, "a status with nothing pending") {
            guard let status = watcher.status() else { return false }
            return status.updatedAt > moment && status.pending == 0
        }
        return try #require(watcher.status())
    }
}

/// Polls until the catalogue equals a fresh index of all `roots` into one catalogue (`bundlefs
/// index` of each).
func waitForConvergence(catalogue path: String, roots: [String], timeout: Double = 30, _ context: String) throws {
    try waitForConvergence(catalogue: path, to: {
        let directory = TemporaryDirectory("fresh")
        let freshPath = directory.appending("fresh.sqlite")
        for root in roots {
            let indexed = try Subprocess.bundlefs(["index", root], catalogue: freshPath)
            guard indexed.status == 0 else { throw WatcherFailure("bundlefs index \(root): \(indexed)") }
        }
        return try CatalogueDump(Catalogue(path: freshPath, mode: .readOnly))
    }, timeout: timeout, context)
}
