import BundleModel
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
            try poll(timeout: 60, "the new file to show under the name looked up before") {
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
            try poll(timeout: 60, "the changed bundle's Info.plist") { try String(decoding: contents(chessInfo), as: UTF8.self).contains("2.5") }
            // The notifier tells the kernel about updates in order: once a later change to a
            // cached file shows, the kernel has been told everything about the bundle's.
            fixture.tree.text("Documents/notes.txt", "notes, edited\n")
            try poll(timeout: 60, "a later change") { try contents(notes) == Array("notes, edited\n".utf8) }

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

        // The first `ls -l` of by-uuid and by-id after an update sends no entry the kernel
        // already holds (it keeps them an hour, and the update made it forget what it touched):
        // the second listing costs the daemon its READDIRPLUS replies and the few nodes the
        // update touched, not a lookup per entry. `ls -l` prints what it printed before for every
        // entry the update did not touch.
        @Test func aListingAfterAnUpdateResendsNoEntryTheKernelHolds() throws {
            let seeds = makeTools()
            let old = BinarySlice.canonicalUUID(MachOImage.uuid(seed: seeds[0])), rebuilt = MachOImage.uuid(seed: 99)
            let view = try fixture.mount(languages: "en")
            let counter = try DaemonCounter(view)
            let listings = [view.path(".bundlefs/by-uuid"), view.path(".bundlefs/by-id")]
            let beforeFirst = try counter.read()
            let first = try Subprocess.run("/bin/ls", ["-ln", "--time-style=+%s"] + listings).standardOutput
            let afterFirst = try counter.read()
            #expect(afterFirst["plusEntry"]! - beforeFirst["plusEntry"]! >= 2 * seeds.count, "the first listings send every entry")

            try rebuild(tool: seeds[0], as: rebuilt, in: view)

            let before = try counter.read()
            let second = try Subprocess.run("/bin/ls", ["-ln", "--time-style=+%s"] + listings).standardOutput
            let after = try counter.read()
            func delta(_ kind: String) -> Int { after[kind]! - before[kind]! }
            #expect(delta("readdirplus") + delta("readdir") >= 2, "both were listed again")
            #expect(delta("plusEntry") + delta("lookup") + delta("getattr") <= 10,
                    "the second listing's entries cost the daemon \(delta("plusEntry")) entries, \(delta("lookup")) lookups, \(delta("getattr")) getattrs")
            let touched = [old, BinarySlice.canonicalUUID(rebuilt), "org.example.tool\(seeds[0])"]
            func untouched(_ listing: String) -> [Substring] {
                listing.split(separator: "\n").filter { line in !line.hasPrefix("total") && !touched.contains { line.hasSuffix(" " + $0) } }
            }
            #expect(untouched(second) == untouched(first))
            #expect(second.contains(BinarySlice.canonicalUUID(rebuilt)) && !second.contains(old))
        }

        /// Tool60.app to Tool75.app (`org.example.toolN`), each executable with the UUID of its seed.
        private func makeTools() -> [Int] {
            let seeds = Array(60..<76)
            for seed in seeds {
                fixture.tree.machOApp("Tools/Tool\(seed).app", identifier: "org.example.tool\(seed)",
                                      executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: seed)).bytes())
            }
            return seeds
        }

        /// Rebuilds a tool's executable with the UUID `uuid` and waits until the kernel has been told
        /// all the update changed: the notifier tells the kernel about updates in order, so once a
        /// later change to a file it cached shows, it has forgotten what the rebuild changed.
        private func rebuild(tool seed: Int, as uuid: [UInt8], in view: MountedView) throws {
            let notes = view.path("Documents/notes.txt")
            #expect(try contents(notes) == Array("notes\n".utf8))
            fixture.tree.file("Tools/Tool\(seed).app/Contents/MacOS/Tool\(seed)", MachOImage.arm64(uuid: uuid).bytes(), mode: 0o755)
            try poll(timeout: 60, "the rebuilt executable") { (try? FileStatus.of(view.path(".bundlefs/by-uuid/\(BinarySlice.canonicalUUID(uuid))"))) != nil }
            fixture.tree.text("Documents/notes.txt", "notes, edited\n")
            try poll(timeout: 60, "a later change") { try contents(notes) == Array("notes, edited\n".utf8) }
        }

        // The daemon's own answers are mended by what an update touched, as the kernel's are: a
        // rebuilt executable's new UUID is in the first listing of by-uuid and the symbol stores
        // after the update and the old one is not, and that listing reads again only the UUIDs
        // (and groups of two digits) the update touched, not every UUID.
        @Test func anUpdateMakesTheDaemonReadAgainOnlyTheUUIDsItTouched() throws {
            let seeds = makeTools()
            let old = MachOImage.uuid(seed: seeds[0]), rebuilt = MachOImage.uuid(seed: 99)
            let oldKey = BinarySlice.uuidKey(BinarySlice.canonicalUUID(old))!, rebuiltKey = BinarySlice.uuidKey(BinarySlice.canonicalUUID(rebuilt))!
            try #require(oldKey.prefix(2) != rebuiltKey.prefix(2), "the two UUIDs in two groups of the unified layout")
            let view = try fixture.mount(languages: "en")
            let counter = try DaemonCounter(view)
            let byUUID = view.path(".bundlefs/by-uuid"), unified = view.path(".bundlefs/symbols/unified")
            #expect(try names(byUUID).contains(BinarySlice.canonicalUUID(old)))
            _ = try Subprocess.run("/bin/ls", ["-lR", unified])
            // A native top-level folder of another UUID, listed one level deep: the daemon keeps its
            // range, the kernel only its first level.
            let unrelated = view.path(".bundlefs/symbols/native/" + String(BinarySlice.canonicalUUID(MachOImage.uuid(seed: seeds[1])).prefix(4)))
            #expect(try names(unrelated).count == 1)

            try rebuild(tool: seeds[0], as: rebuilt, in: view)

            let before = try counter.read()
            let listed = try names(byUUID)
            #expect(listed.contains(BinarySlice.canonicalUUID(rebuilt)) && !listed.contains(BinarySlice.canonicalUUID(old)))
            let afterByUUID = try counter.read()
            #expect(afterByUUID["readdirplus"]! + afterByUUID["readdir"]! > before["readdirplus"]! + before["readdir"]!, "by-uuid was listed again")
            #expect(afterByUUID["uuidListingQuery"]! == before["uuidListingQuery"]!, "every UUID was read again")
            #expect(afterByUUID["uuidQuery"]! - before["uuidQuery"]! <= 2)

            let tree = try Subprocess.run("/bin/ls", ["-R", unified]).standardOutput
            #expect(tree.contains(String(rebuiltKey.dropFirst(2))) && !tree.contains(String(oldKey.dropFirst(2))))
            let afterUnified = try counter.read()
            // The two groups touched, one range each; the other fifteen answer from what was kept.
            #expect(afterUnified["symbolQuery"]! - afterByUUID["symbolQuery"]! <= 2)
            let beneath = try Subprocess.run("/bin/ls", ["-R", unrelated]).standardOutput
            #expect(beneath.contains(String(BinarySlice.canonicalUUID(MachOImage.uuid(seed: seeds[1])).suffix(12))))
            let after = try counter.read()
            #expect(after["readdirplus"]! + after["readdir"]! > afterUnified["readdirplus"]! + afterUnified["readdir"]!, "nothing beneath was listed")
            #expect(after["symbolQuery"]! == afterUnified["symbolQuery"]!, "the range of a folder no update touched was read again")
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
