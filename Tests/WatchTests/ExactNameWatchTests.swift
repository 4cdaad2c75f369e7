import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// `Résumé` as a Mac writes it (NFD: e + combining acute) and as most Linux programs do (NFC).
let resumeNFC = "R\u{E9}sum\u{E9}"
let resumeNFD = "Re\u{301}sume\u{301}"

extension WatchTests {
    /// Twin folders whose names differ only in normalization are two folders: created, deleted
    /// and recreated in turn, the catalogue always equals a fresh index.
    @Test func normalizationTwinsStayTwo() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        try fixture.start()
        tree.macApp("Shared/\(resumeNFC)/Writer.app", identifier: "com.example.nfc")
        tree.macApp("Shared/\(resumeNFD)/Writer.app", identifier: "com.example.nfd")
        try fixture.converge("both twins created")
        #expect(try fixture.identifiers() == ["com.example.nfc", "com.example.nfd"])

        tree.remove("Shared/\(resumeNFC)")
        try fixture.converge("the NFC twin deleted")
        #expect(try fixture.identifiers() == ["com.example.nfd"])

        tree.macApp("Shared/\(resumeNFC)/Writer.app", identifier: "com.example.nfc.again")
        try fixture.converge("the NFC twin created again")
        tree.remove("Shared/\(resumeNFD)")
        try fixture.converge("the NFD twin deleted")
        #expect(try fixture.identifiers() == ["com.example.nfc.again"])

        // A twin renamed into the other's name: one folder, then two again.
        tree.macApp("Shared/\(resumeNFD)/Reader.app", identifier: "com.example.reader")
        try fixture.converge("a new NFD twin")
        tree.rename("Shared/\(resumeNFD)", "Shared/Other")
        try fixture.converge("the NFD twin renamed")
        #expect(try fixture.identifiers() == ["com.example.nfc.again", "com.example.reader"])
        #expect(try fixture.watcher!.stop() == 0)
    }

    /// Renaming a framework keeps every directory of it watched, its `Versions/A/Resources` and
    /// lprojs included (reached through the top-level `Resources` link too): an edit there shows
    /// at once, not at the next periodic rescan, and no directory is counted unwatched.
    @Test func renamedFrameworksStayWatched() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        for index in 1...3 {
            tree.macFramework("Frameworks/Lib\(index).framework", identifier: "com.example.lib\(index)")
            tree.strings("Frameworks/Lib\(index).framework/Versions/A/Resources/en.lproj/InfoPlist.strings", ["CFBundleName": "Lib \(index)"])
            tree.strings("Frameworks/Lib\(index).framework/Versions/A/Resources/de.lproj/InfoPlist.strings", ["CFBundleName": "Bibliothek \(index)"])
        }
        tree.directory("Elsewhere")
        tree.symlink("Frameworks/Shortcut", to: "../Elsewhere")
        // Periodic rescans far away: only watches can see the edits below.
        let watcher = try fixture.start(environment: ["BUNDLEFS_RESCAN_INTERVAL": "3600"])
        try fixture.converge("initial index")

        tree.rename("Frameworks/Lib1.framework", "Frameworks/Lib1b.framework")
        try fixture.converge("a framework renamed", timeout: 10)
        tree.rename("Frameworks", "Libraries")
        try fixture.converge("the frameworks' folder renamed", timeout: 10)
        tree.rename("Libraries/Lib2.framework", "Elsewhere/Lib2.framework")
        try fixture.converge("a framework moved into another folder", timeout: 10)
        for (framework, name) in [("Libraries/Lib1b.framework", "Edited 1"), ("Elsewhere/Lib2.framework", "Edited 2"), ("Libraries/Lib3.framework", "Edited 3")] {
            tree.strings(framework + "/Versions/A/Resources/en.lproj/InfoPlist.strings", ["CFBundleName": name])
            try fixture.converge("an lproj of \(framework) edited", timeout: 10)
        }
        tree.strings("Libraries/Lib1b.framework/Versions/A/Resources/fr.lproj/InfoPlist.strings", ["CFBundleName": "Bibliothèque"])
        try fixture.converge("an lproj added to a renamed framework", timeout: 10)

        try expectEveryDirectoryWatched(fixture, watcher)
        #expect(!watcher.log.contains("watch limit"), "\(watcher.log)")
        #expect(try watcher.stop() == 0)
    }

    /// Whatever the descriptor limit, `watch` either works or says why in one line; it never
    /// crashes (the inotify wake-up pipe once did, with `try!`; libdispatch, under GRDB, trapped
    /// now and then at 10 when it could not get a descriptor, until bundlefs asked for 64 first).
    @Test func anyDescriptorLimitIsAnErrorNotACrash() throws {
        let fixture = WatchFixture()
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        var outcomes: [Int: Int32] = [:]
        for limit in [9, 10, 11, 12, 16, 17, 32, 63, 64, 65, 80] {
            let catalogue = fixture.directory.appending("limit\(limit)/catalogue.sqlite")
            // `timeout` ends the ones that get as far as watching; exit 124 then.
            let result = try Subprocess.run(
                "/bin/sh", ["-c", "ulimit -n \(limit) && exec timeout -s TERM 1 \"$0\" watch \"$1\"", Subprocess.bundlefs, fixture.tree.root],
                environment: ["BUNDLEFS_CATALOGUE": catalogue])
            outcomes[limit] = result.status
            #expect([1, 2, 124].contains(result.status), "limit \(limit): \(result)")
            #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("Backtracing"), "limit \(limit): \(result)")
            if result.status == 1 || result.status == 2 {
                #expect(result.standardError.hasPrefix("bundlefs: ") && result.standardError.split(separator: "\n").count == 1,
                        "limit \(limit): \(result)")
            }
        }
        // Below the floor, one line and status 1; from it on, watching.
        #expect(outcomes.allSatisfy { limit, status in status == (limit < DescriptorLimit.needed ? 1 : 124) }, "\(outcomes.sorted { $0.key < $1.key })")
    }

    /// Setting the wall clock back an hour (NTP, a user) must not stop the periodic rescans of
    /// unwatched directories: deadlines run on the monotonic clock.
    @Test(.enabled(if: FakeTime.isAvailable, Comment(rawValue: FakeTime.skipMessage)))
    func aClockSetBackDoesNotStopRescans() throws {
        // inotify's: fanotify has no watch limit.
        let fixture = WatchFixture(backend: "inotify")
        for index in 0..<6 { fixture.tree.macApp("Group\(index % 2)/App\(index).app", identifier: "com.example.clock\(index)") }
        let clock = FakeTime(directory: fixture.directory)
        // Through env: exec'd straight from the test runner with libfaketime preloaded, the Swift
        // runtime of the child sees no arguments at all.
        let watcher = try fixture.start(environment: clock.environment.merging(
            ["BUNDLEFS_BACKEND": "inotify", "BUNDLEFS_WATCH_LIMIT": "3", "BUNDLEFS_RESCAN_INTERVAL": "0.5"], uniquingKeysWith: { $1 }), launcher: "/usr/bin/env")
        #expect((watcher.status()?.unwatchedDirectories ?? 0) > 0)
        clock.setOffset("-3600")
        fixture.tree.macApp("Group1/App1.app/Contents/PlugIns/Late.plugin", identifier: "com.example.late")
        try fixture.converge("a change in an unwatched directory after the clock went back", timeout: 10)
        #expect(try watcher.stop() == 0)
    }
}

/// The watcher's picture of the tree equals the tree: every catalogued directory has a watch of
/// its own and none is unwatched.
func expectEveryDirectoryWatched(_ fixture: WatchFixture, _ watcher: WatcherProcess) throws {
    let directories = try Catalogue(path: fixture.catalogue, mode: .readOnly).counts(under: FilePath(fixture.tree.root)).directories
    try poll(timeout: 10, "a status row written after the last change") {
        guard let status = watcher.status() else { return false }
        return status.pending == 0 && status.watchedDirectories == directories && status.unwatchedDirectories == 0
    }
}

/// libfaketime (Debian's `faketime`), to set a child's wall clock without touching the machine's:
/// the offset is read from a file, so it can jump while the child runs; the monotonic clock stays real.
struct FakeTime {
    static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
    static var isAvailable: Bool { (try? FileStatus.of(library)) != nil }
    static let skipMessage = "libfaketime is not installed (apt-get install faketime; `make test` does)"

    let file: String

    init(directory: TemporaryDirectory) {
        file = directory.appending("faketime")
        TreeWriter(root: directory.path).text("faketime", "+0\n")
    }

    var environment: [String: String] {
        ["LD_PRELOAD": Self.library, "FAKETIME_TIMESTAMP_FILE": file, "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1"]
    }

    /// A libfaketime offset such as `-3600` (seconds).
    func setOffset(_ offset: String) {
        TreeWriter(root: FilePath(file).parent.string).text(FilePath(file).lastComponent.string, offset + "\n")
    }
}
