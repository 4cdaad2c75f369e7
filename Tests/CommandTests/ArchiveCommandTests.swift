import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Bundles inside archives through the command line (SPEC.md, "Bundles inside archives"): indexed
/// with `archive` and `member`, narrowed with `--in-archives`/`--no-archives`, shown whole by
/// `show ARCHIVE`, read again when the archive changes, dropped when it goes.
@Suite struct ArchiveCommandTests {
    let temporary = TemporaryDirectory("archive-commands")
    var source: TreeWriter { TreeWriter(root: temporary.appending("source")) }
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    func bundlefs(_ arguments: String...) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue)
    }

    /// An `.ipa` of an app at `version`, written by `zip` from a tree our code wrote.
    func writeIPA(_ name: String, version: String) throws {
        removeTree(source.root)
        source.machOApp("Payload/Game.app", identifier: "com.example.game", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 71)).bytes())
        source.plist("Payload/Game.app/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.game"), "CFBundleExecutable": .string("Game"), "CFBundleVersion": .string(version),
            "CFBundlePackageType": .string("APPL"),
        ]))
        try FileManager.default.createDirectory(atPath: tree.root, withIntermediateDirectories: true)
        let temporaryZip = Paths.join(tree.root, ".\(name).tmp")
        let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", temporaryZip, "Payload"], directory: source.root)
        try #require(zipped.status == 0, "\(zipped)")
        try #require(rename(temporaryZip, Paths.join(tree.root, name)) == 0)
    }

    @Test func indexQueryShowReplaceRemove() throws {
        try writeIPA("Game.ipa", version: "1.0")
        tree.macApp("Loose.app", identifier: "com.example.loose")
        #expect(try bundlefs("index", tree.root).status == 0)

        let archived = try #require(try JSONValue.parse(try bundlefs("query", "--in-archives", "--json").standardOutput).arrayValue)
        #expect(archived.count == 1)
        let game = try #require(archived.first)
        #expect(game["path"] == .string(tree.path("Game.ipa")))
        #expect(game["archive"] == .string(tree.path("Game.ipa")))
        #expect(game["member"] == .string("Payload/Game.app"))
        #expect(game["version"] == .string("1.0"))
        #expect(game["binaries"]?.arrayValue?.first?["uuid"] == .string(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 71))))
        let loose = try JSONValue.parse(try bundlefs("query", "--no-archives", "--json").standardOutput).arrayValue
        #expect(loose?.map { $0["identifier"] } == [.string("com.example.loose")])
        #expect(try bundlefs("query", "--in-archives", "--no-archives").status == 1)

        let show = try bundlefs("show", tree.path("Game.ipa"))
        #expect(show.status == 0 && show.standardOutput.contains("Member:") && show.standardOutput.contains("Payload/Game.app"), "\(show)")
        let shown = try JSONValue.parse(try bundlefs("show", tree.path("Game.ipa"), "--json").standardOutput).arrayValue
        #expect(shown?.first?["identifier"] == .string("com.example.game"))

        // Unchanged, the archive is not read again (its rows keep their time), as an unchanged
        // directory is not listed.
        let scannedAt = { try Subprocess.run("/usr/bin/sqlite3", [catalogue, "SELECT scanned_at FROM bundles WHERE archive IS NOT NULL"]).standardOutput }
        let before = try scannedAt()
        usleep(20_000)
        #expect(try bundlefs("index", tree.root).status == 0)
        #expect(try scannedAt() == before && !before.isEmpty)

        // Replaced by a newer build (renamed over), re-indexed: the new version; removed: gone.
        try writeIPA("Game.ipa", version: "2.0")
        #expect(try bundlefs("index", tree.root).status == 0)
        let newer = try JSONValue.parse(try bundlefs("query", "com.example.game", "--json").standardOutput).arrayValue
        #expect(newer?.map { $0["version"] } == [.string("2.0")])
        unlink(tree.path("Game.ipa"))
        #expect(try bundlefs("index", tree.root).status == 0)
        #expect(try bundlefs("query", "--in-archives").standardOutput.isEmpty)
    }

    @Test func hostileArchivesAreCataloguedWithTheirErrorsAndSlowNothing() throws {
        try FileManager.default.createDirectory(atPath: tree.root, withIntermediateDirectories: true)
        let bomb = tree.path("Bomb.ipa"), climbing = tree.path("Climb.zip"), truncated = tree.path("Cut.ipa")
        let script = ["import", "zipfile"].joined(separator: " ") + """

            with zipfile.ZipFile('\(bomb)', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('Payload/Bomb.app/Info.plist', b'\\0' * (64 << 20))
            with zipfile.ZipFile('\(climbing)', 'w') as z:
                z.writestr('../../etc/passwd', 'root:x:0:0')
                z.writestr('Payload/Ok.app/Info.plist', '<plist><dict><key>CFBundleIdentifier</key><string>com.example.ok</string></dict></plist>')
            """
        let many = tree.path("Many.zip")
        let manyScript = ["import", "zipfile"].joined(separator: " ") + """

            with zipfile.ZipFile('\(many)', 'w') as z:
                for i in range(100001):
                    z.writestr('m/%d' % i, '')
            """
        let madeMany = try Subprocess.run("/usr/bin/python3", ["-c", manyScript])
        try #require(madeMany.status == 0, "\(madeMany)")
        tree.macApp("Beside.app", identifier: "com.example.beside")
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        try writeIPA("Whole.ipa", version: "1.0")
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tree.path("Whole.ipa"))))
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: truncated))
        unlink(tree.path("Whole.ipa"))
        // An encrypted build: listed, its members not read; its app is catalogued with the error.
        let encrypted = try Subprocess.run("/usr/bin/zip", ["-qry", "-P", "secret", tree.path("Locked.ipa"), "Payload"], directory: source.root)
        try #require(encrypted.status == 0, "\(encrypted)")

        #expect(try bundlefs("index", tree.root).status == 0)
        let errors = try Subprocess.run("/usr/bin/sqlite3", [catalogue, "SELECT path || ': ' || error FROM archives WHERE error IS NOT NULL ORDER BY path"])
        #expect(errors.standardOutput.contains("Climb.zip: 1 member names leading out"), "\(errors)")
        // The bomb is stopped at its ratio (the archive's error); its app is still catalogued.
        #expect(errors.standardOutput.contains("Bomb.ipa: ") && errors.standardOutput.contains("fold compression"), "\(errors)")
        let shownBomb = try bundlefs("show", bomb, "--json")
        let bombApp = try JSONValue.parse(shownBomb.standardOutput).arrayValue?.first
        #expect(bombApp?["errors"]?.arrayValue?.isEmpty == false, "\(String(describing: bombApp))")
        // The archive's own error is in the JSON, and a read that stopped is not a success.
        #expect(bombApp?["archiveError"]?.stringValue?.contains("fold compression") == true, "\(String(describing: bombApp))")
        #expect(shownBomb.status == 1 && shownBomb.standardError.contains("fold compression"), "\(shownBomb)")
        let queried = try JSONValue.parse(try bundlefs("query", "--in-archives", "--json").standardOutput).arrayValue ?? []
        let queriedBomb = queried.first { $0["path"] == .string(bomb) }
        #expect(queriedBomb?["archiveError"]?.stringValue?.contains("fold compression") == true, "\(queried)")
        #expect(queried.first { $0["path"] == .string(climbing) }?["archiveError"]?.stringValue?.contains("leading out") == true, "\(queried)")
        let loose = try JSONValue.parse(try bundlefs("query", "com.example.beside", "--json").standardOutput).arrayValue?.first
        #expect(loose?["archiveError"] == .null)
        let shownCut = try bundlefs("show", truncated, "--json")
        #expect(shownCut.status == 1 && shownCut.standardError.contains("Cut.ipa"), "\(shownCut)")
        #expect(errors.standardOutput.contains("Cut.ipa: "), "\(errors)")
        #expect(errors.standardOutput.contains("Many.zip: more than 100000 members"), "\(errors)")
        #expect(try JSONValue.parse(try bundlefs("query", "com.example.beside", "--json").standardOutput).arrayValue?.count == 1)
        let ok = try JSONValue.parse(try bundlefs("query", "com.example.ok", "--json").standardOutput).arrayValue
        #expect(ok?.count == 1)
        // Nothing was extracted beside the archives, nor where `..` pointed.
        let listing = try FileManager.default.contentsOfDirectory(atPath: tree.root).sorted()
        #expect(listing == ["Beside.app", "Bomb.ipa", "Climb.zip", "Cut.ipa", "Locked.ipa", "Many.zip"], "\(listing)")
        let locked = try JSONValue.parse(try bundlefs("query", "--under", tree.path("Locked.ipa"), "--json").standardOutput).arrayValue?.first
        #expect(locked?["errors"]?.arrayValue?.contains { $0.stringValue?.contains("encrypted") == true } == true, "\(String(describing: locked))")
        #expect((try? FileStatus.of(temporary.appending("etc/passwd"))) == nil)
    }
}
