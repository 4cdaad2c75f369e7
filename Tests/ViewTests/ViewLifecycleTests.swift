import Catalogue
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// Mounting, daemonizing, unmounting on signals, and recovering from a killed daemon.
    @Suite struct Lifecycle {
        let fixture = ViewFixture()

        @Test func sigtermAndSigintUnmountCleanly() throws {
            for signal in [SIGTERM, SIGINT] {
                let view = try fixture.mount(languages: "en")
                #expect(try listing(view.mountPoint).contains("Applications"))
                #expect(try view.stop(signal) == 0, "\(view.log)")
                #expect(!isMounted(view.mountPoint))
            }
        }

        @Test func daemonizesByDefault() throws {
            let mountPoint = fixture.directory.appending("daemon-mnt")
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            let catalogue = fixture.directory.appending("daemon/catalogue.sqlite")
            defer { if isMounted(mountPoint) { _ = try? Subprocess.run("/usr/bin/fusermount3", ["-uz", mountPoint]) } }
            let started = try Subprocess.bundlefs(["mount", fixture.source, mountPoint, "--lang", "de"], catalogue: catalogue)
            #expect(started.status == 0, "\(started)")
            #expect(isMounted(mountPoint), "mounted when the command returns")
            #expect(try listing(Paths.join(mountPoint, "Applications")) == ["Old", "Schach"])
            // The daemon's pid is in the catalogue's watcher status.
            let pid = try #require(try Catalogue(path: catalogue, mode: .readOnly).watchStatus()?.pid)
            #expect(kill(pid, SIGTERM) == 0)
            try poll(timeout: 30, "the daemon to unmount and exit") { !isMounted(mountPoint) && kill(pid, 0) != 0 }
        }

        @Test func aKilledDaemonLeavesADeadMountThatCanBeRemounted() throws {
            let view = try fixture.mount(languages: "en")
            try view.stop(SIGKILL)
            #expect(isMounted(view.mountPoint), "the kernel keeps the mount")
            #expect(opendir(view.mountPoint) == nil && errno == ENOTCONN)
            let again = try Subprocess.bundlefs(["mount", fixture.source, view.mountPoint, "-f"], catalogue: view.catalogue)
            #expect(again.status == 1)
            #expect(again.standardError.contains("daemon is gone") && again.standardError.contains("fusermount3 -uz"), "\(again)")
            let unmount = try Subprocess.run("/usr/bin/fusermount3", ["-uz", view.mountPoint])
            #expect(unmount.status == 0, "\(unmount)")
            let remounted = try MountedView(source: fixture.source, mountPoint: view.mountPoint, catalogue: view.catalogue, languages: "en",
                                            logFile: fixture.directory.appending("remount.log"))
            #expect(try listing(remounted.mountPoint).contains("Applications"))
        }

        @Test func missingAndBusyMountPointsAreUserErrors() throws {
            let catalogue = fixture.directory.appending("errors/catalogue.sqlite")
            let missing = try Subprocess.bundlefs(["mount", fixture.source, fixture.directory.appending("nowhere"), "-f"], catalogue: catalogue)
            #expect(missing.status == 1 && missing.standardError.contains("does not exist"), "\(missing)")
            let view = try fixture.mount(languages: "en")
            let busy = try Subprocess.bundlefs(["mount", fixture.source, view.mountPoint, "-f"], catalogue: fixture.directory.appending("other.sqlite"))
            #expect(busy.status == 1 && busy.standardError.contains("busy"), "\(busy)")
            let inside = try Subprocess.bundlefs(["mount", fixture.source, fixture.tree.path("Documents"), "-f"], catalogue: catalogue)
            #expect(inside.status == 1 && inside.standardError.contains("inside the source"), "\(inside)")
            let file = try Subprocess.bundlefs(["mount", fixture.source, fixture.tree.path("README.txt"), "-f"], catalogue: catalogue)
            #expect(file.status == 1 && file.standardError.contains("not a directory"), "\(file)")
        }
    }
}
