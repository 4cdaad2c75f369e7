import Foundation
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// `make bench` counts the daemon's requests: `MNT/.bundlefs` carries them as an attribute.
    @Suite struct RequestCounting {
        let fixture = ViewFixture()

        @Test func requestsAreCountedByKind() throws {
            let view = try fixture.mount(languages: "en")
            let before = try requestCounts(view)
            #expect(before.keys.contains("lookup") && before.keys.contains("open") && before.keys.contains("read"))
            #expect(try contents(view.path("README.txt")) == Array("read me\n".utf8))
            for index in 0..<5 { #expect(throws: (any Error).self) { try FileStatus.of(view.path("missing-\(index)")) } }
            let after = try requestCounts(view)
            #expect(after["open"]! - before["open"]! == 1)
            #expect(after["read"]! - before["read"]! >= 1)
            #expect(after["lookup"]! - before["lookup"]! >= 6, "README.txt and five missing names")
            #expect(after["getxattr"]! - before["getxattr"]! == 1, "the reading itself")
        }

        // FUSE_CAP_NO_OPENDIR_SUPPORT: after the first OPENDIR is answered ENOSYS, listing
        // directories costs the daemon no OPENDIR or RELEASEDIR, and a second `find` no READDIR.
        @Test func directoriesAreOpenedByTheKernel() throws {
            let view = try fixture.mount(languages: "en")
            _ = try Subprocess.run("/usr/bin/find", [view.mountPoint])
            let before = try requestCounts(view)
            let found = try Subprocess.run("/usr/bin/find", [view.mountPoint])
            #expect(found.standardOutput.contains("README.txt"))
            let after = try requestCounts(view)
            #expect(after["opendir"]! - before["opendir"]! == 0)
            #expect(after["releasedir"]! - before["releasedir"]! == 0)
            #expect(after["readdir"]! + after["readdirplus"]! - before["readdir"]! - before["readdirplus"]! == 0)
        }
    }
}
