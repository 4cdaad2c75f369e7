import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// What the kernel keeps of the view, and what an update makes it forget (Docs/view.md,
    /// "What the kernel keeps"): counted from the daemon's request counters, not timed.
    @Suite struct Invalidation {
        let fixture = ViewFixture()

        // A missing name is a negative entry the kernel keeps: asking again costs the daemon
        // nothing, until an update touches its directory and the name appears at once.
        @Test func missingNamesAreKeptUntilTheirDirectoryChanges() throws {
            let view = try fixture.mount(languages: "en")
            let counter = try DaemonCounter(view)
            let missing = view.path("Documents/later.txt")
            #expect(throws: (any Error).self) { try FileStatus.of(missing) }
            let before = try counter.read()
            for _ in 0..<3 { #expect(throws: (any Error).self) { try FileStatus.of(missing) } }
            let after = try counter.read()
            #expect(after["lookup"]! - before["lookup"]! == 0, "a missing name asked again reaches the daemon")

            fixture.tree.text("Documents/later.txt", "later\n")
            try poll(timeout: 5, "the new file to show under the name looked up before") {
                (try? FileStatus.of(missing))?.type == .regular
            }
            #expect(try contents(missing) == Array("later\n".utf8))
        }

        // A change to one bundle makes the kernel forget that bundle's nodes only: another
        // bundle's view and another by-path folder are listed again from the kernel's cache.
        @Test func anUpdateToOneBundleLeavesOtherListingsCached() throws {
            let view = try fixture.mount(languages: "en")
            let counter = try DaemonCounter(view)
            let unrelated = [view.path(".bundlefs/by-id/org.example.kit"), view.path(".bundlefs/by-path/Library/Frameworks")]
            let listed = try unrelated.map(names)
            #expect(listed.allSatisfy { !$0.isEmpty })
            let chessInfo = view.path(".bundlefs/by-id/org.example.chess/Info.plist")
            #expect(try !String(decoding: contents(chessInfo), as: UTF8.self).contains("2.5"))
            let notes = view.path("Documents/notes.txt")
            #expect(try contents(notes) == Array("notes\n".utf8))

            fixture.tree.macApp("Applications/Chess.app", identifier: "org.example.chess",
                                info: ["CFBundleName": .string("Chess"), "CFBundleVersion": .string("2.5"), "CFBundleDevelopmentRegion": .string("en")])
            try poll(timeout: 5, "the changed bundle's Info.plist") { try String(decoding: contents(chessInfo), as: UTF8.self).contains("2.5") }
            // The notifier tells the kernel about updates in order: once a later change to a
            // cached file shows, the kernel has been told everything about the bundle's.
            fixture.tree.text("Documents/notes.txt", "notes, edited\n")
            try poll(timeout: 5, "a later change") { try contents(notes) == Array("notes, edited\n".utf8) }

            let before = try counter.read()
            #expect(try unrelated.map(names) == listed)
            let after = try counter.read()
            #expect(after["readdir"]! + after["readdirplus"]! - before["readdir"]! - before["readdirplus"]! == 0,
                    "listings of other bundles were read again")
            // `.bundlefs`, `by-id` and by-path's folders have short entry timeouts: walking to the
            // two folders may look those five up again, nothing in them.
            #expect(after["lookup"]! - before["lookup"]! <= 5)
        }

        // After `ls -R` of the symbol stores the kernel holds thousands of synthesized nodes; an
        // update to one bundle invalidates a few of them, however many the kernel holds.
        @Test func anUpdateToOneBundleCostsThatBundlesNodes() throws {
            let directory = TemporaryDirectory("view-invalidation")
            let source = directory.appending("source")
            // $BUNDLEFS_INVALIDATION_BUNDLES measures a larger tree (Docs/view.md's figures).
            let bundles = ProcessInfo.processInfo.environment["BUNDLEFS_INVALIDATION_BUNDLES"].flatMap { Int($0) } ?? 200
            BenchmarkTree(root: source, bundles: bundles).generate()
            let writer = TreeWriter(root: source)
            writer.text("notes.txt", "notes\n")
            let view = try MountedView(source: source, mountPoint: directory.appending("mnt"), catalogue: directory.appending("cache/catalogue.sqlite"),
                                       languages: "en", logFile: directory.appending("mount.log"))
            defer { view.cleanUp() }
            let counter = try DaemonCounter(view)
            let listed = try Subprocess.run("/bin/ls", ["-R", view.mountPoint, view.path(".bundlefs/symbols"), view.path(".bundlefs/by-uuid")], timeout: 600)
            let lines = listed.standardOutput.split(separator: "\n").count
            #expect(lines > 1_000, "the kernel holds the tree's and the symbol stores' nodes")
            let notes = view.path("notes.txt")
            #expect(try contents(notes) == Array("notes\n".utf8))
            let before = try counter.read()

            let identifier = BenchmarkTree.identifier(0)
            writer.plist("Group0/App0.app/Contents/Info.plist", .dictionary([
                "CFBundleIdentifier": .string(identifier), "CFBundleExecutable": .string("App0"), "CFBundleVersion": .string("9"),
                "CFBundlePackageType": .string("APPL"),
            ]))
            try poll(timeout: 10, "the changed bundle's Info.plist") {
                try String(decoding: contents(view.path(".bundlefs/by-id/\(identifier)/Info.plist")), as: UTF8.self).contains("<string>9</string>")
            }
            writer.text("notes.txt", "notes, edited\n")
            try poll(timeout: 10, "a later change") { try contents(notes) == Array("notes, edited\n".utf8) }

            let after = try counter.read()
            let inodes = after["invalidateInode"]! - before["invalidateInode"]!
            print("view: one bundle's update (of \(bundles)) invalidated \(inodes) nodes and \(after["invalidateEntry"]! - before["invalidateEntry"]!) names; ls -R printed \(lines) lines")
            #expect(inodes > 0 && inodes < 100)
        }
    }
}

/// A directory's names, from getdents alone (no entry looked up or stat-ed).
private func names(_ path: String) throws -> [String] {
    try Descriptor.open(FilePath(path), flags: Descriptor.directoryNoFollow).listDirectory().map(\.name.string).sorted()
}

/// The daemon's request counters, read through one descriptor of `MNT/.bundlefs` so that reading
/// them looks nothing up (each reading costs one GETXATTR).
struct DaemonCounter {
    let descriptor: Descriptor

    init(_ view: MountedView) throws { descriptor = try Descriptor.open(FilePath(view.path(".bundlefs")), flags: Descriptor.directoryNoFollow) }

    func read() throws -> [String: Int] {
        let bytes = try #require(try ExtendedAttributes.value("user.bundlefs.requests", of: descriptor))
        var counts: [String: Int] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: " ") {
            let parts = pair.split(separator: "=")
            counts[String(parts[0])] = Int(parts[1])
        }
        return counts
    }
}
