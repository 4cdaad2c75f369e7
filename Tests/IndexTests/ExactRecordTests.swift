@testable import Catalogue
import BundleModel
import Codecs
import Fixtures
import GRDB
import SystemCalls
import Testing
import TestSupport

/// `Résumé` in NFC (precomposed é) and in NFD (e + combining acute): two names to a file system.
private let nfc = "R\u{E9}sum\u{E9}"
private let nfd = "Re\u{301}sume\u{301}"

@Suite struct ExactRecordTests {
    /// Twin folders that differ only in normalization, each with an app: deleting either and
    /// indexing again leaves exactly what a fresh index of the tree finds.
    @Test(arguments: [nfc, nfd])
    func deletingOneNormalizationTwinLeavesTheOther(deleted: String) throws {
        let fixture = try IndexFixture()
        for (name, identifier) in [(nfc, "com.example.nfc"), (nfd, "com.example.nfd")] {
            fixture.tree.macApp("Shared/\(name)/Writer.app", identifier: identifier, localizedStrings: ["de": ["CFBundleDisplayName": "Schreiber"]])
            fixture.tree.text("Shared/\(name)/Notes/readme.txt", "x")
        }
        try fixture.index()
        let both = try fixture.catalogue.bundles(matching: BundleQuery()).map(\.record.key)
        #expect(Set(both) == [FilePath(fixture.tree.path("Shared/\(nfc)/Writer.app")), FilePath(fixture.tree.path("Shared/\(nfd)/Writer.app"))])

        fixture.tree.remove("Shared/\(deleted)")
        let summary = try fixture.index()
        #expect(summary.removedBundles == 1)
        #expect(try fixture.dump() == fixture.freshDump())
        // Compared as names: as Strings the two are equal (canonical equivalence).
        let kept = FileName(deleted) == FileName(nfc) ? nfd : nfc
        #expect(try fixture.catalogue.bundles(matching: BundleQuery()).map(\.record.key) == [FilePath(fixture.tree.path("Shared/\(kept)/Writer.app"))])
    }

    /// Twin archives: removing one leaves the other's bundles, and the removed one's go.
    @Test(arguments: [nfc, nfd])
    func deletingOneNormalizationTwinArchiveLeavesTheOther(deleted: String) throws {
        let fixture = try IndexFixture()
        for (name, identifier) in [(nfc, "com.example.nfc"), (nfd, "com.example.nfd")] {
            let staging = TreeWriter(root: fixture.directory.appending("staging-\(identifier)"))
            staging.macApp("Payload/Writer.app", identifier: identifier)
            fixture.tree.directory("Archives")
            let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", fixture.tree.path("Archives/\(name).ipa"), "Payload"], directory: staging.root)
            try #require(zipped.status == 0, "\(zipped)")
        }
        try fixture.index()
        #expect(try Set(fixture.catalogue.bundles(matching: BundleQuery()).compactMap(\.record.identifier)) == ["com.example.nfc", "com.example.nfd"])

        fixture.tree.remove("Archives/\(deleted).ipa")
        try fixture.index()
        let kept = FileName(deleted) == FileName(nfc) ? "com.example.nfd" : "com.example.nfc"
        #expect(try fixture.catalogue.bundles(matching: BundleQuery()).compactMap(\.record.identifier) == [kept])
        #expect(try fixture.dump() == fixture.freshDump())
    }

    /// The writer's subtree, the root's included: removing `/` removes everything, as the readers'
    /// subtree of `/` reads everything (the writer's own condition once missed all of it).
    @Test func theWholeTreeIsASubtree() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("Apps/A.app", identifier: "com.example.a")
        try fixture.index()
        #expect(try fixture.catalogue.counts(under: .root).bundles == 1)
        try fixture.catalogue.transaction(scannedAt: 0) { try $0.removeSubtree(.root) }
        let counts = try fixture.catalogue.counts(under: .root)
        #expect(counts.bundles == 0 && counts.directories == 0, "\(counts)")
    }

    /// What the catalogue gives back is what inspection found: the raw Info dictionary whole
    /// (every type, nested values, vendor keys), the strings tables, problems, stamps.
    @Test func aRecordReadBackIsTheRecordWritten() throws {
        let fixture = try IndexFixture()
        let info: [String: PlistValue] = [
            "CFBundleName": .string("Everything"), "CFBundleVersion": .string("2.1.0b7"),
            "NSHumanReadableCopyright": .string("© 2026 Example"), "LSHasLocalizedDisplayName": .bool(true),
            "LSMinimumSystemVersion": .string("11.0"), "NSPrincipalClass": .string("NSApplication"),
            "ExampleInteger": .integer(-42), "ExampleLarge": .integer(Int64.max), "ExampleReal": .real(2.5),
            "ExampleDate": .date(757_382_400), "ExampleData": .data([0, 1, 2, 0xFF]),
            "ExampleNested": .dictionary(["list": .array([.string("a"), .integer(1), .dictionary(["deep": .bool(false)])])]),
            "CFBundleDocumentTypes": .array([.dictionary([
                "CFBundleTypeExtensions": .array([.string("everything")]), "LSTypeIsPackage": .bool(true),
                "CFBundleTypeName": .string("Everything Document"),
            ])]),
            "UTExportedTypeDeclarations": .array([.dictionary([
                "UTTypeIdentifier": .string("com.example.everything"), "UTTypeConformsTo": .array([.string("com.apple.package")]),
                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("everything")])]),
            ])]),
        ]
        fixture.tree.macApp("Everything.app", identifier: "com.example.everything", info: info, format: .binary)
        fixture.tree.strings("Everything.app/Contents/Resources/de.lproj/InfoPlist.strings", ["CFBundleName": "Alles"])
        fixture.tree.text("Everything.app/Contents/Resources/it.lproj/InfoPlist.strings", "\"CFBundleName\" = \"broken;")
        fixture.tree.setAttribute("Everything.app", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x20))
        try fixture.index()

        let stored = try #require(try fixture.catalogue.bundle(atPath: fixture.tree.path("Everything.app"))).record
        let root = try ScanRoot(path: fixture.tree.root)
        let read = try #require(BundleInspector(root: root).inspect(try DirectoryContext.open(fixture.tree.path("Everything.app"), in: root)))
        #expect(stored == read)
        #expect(stored.info["ExampleData"] == .data([0, 1, 2, 0xFF]))
        #expect(stored.info["ExampleDate"] == .date(757_382_400))
        #expect(stored.info["ExampleNested"] == info["ExampleNested"])
        #expect(!stored.stamps.isEmpty && !stored.errors.isEmpty)
    }

    /// An Info dictionary that JSON carries exactly is stored once, as JSON; its numbers still
    /// come back with their types and values (integers at both ends of Int64, reals that look
    /// whole, tiny and huge ones).
    @Test func aJSONStoredInfoDictionaryComesBackExactly() throws {
        let fixture = try IndexFixture()
        let info: [String: PlistValue] = [
            "Smallest": .integer(.min), "Largest": .integer(.max), "Whole": .real(2.0), "NegativeZero": .real(-0.0),
            "Tenth": .real(0.1), "Huge": .real(1e300), "Tiny": .real(.leastNonzeroMagnitude), "Text": .string("quote \" back\\ nul \u{0} ♞"),
            "Nested": .array([.dictionary(["flag": .bool(false), "count": .integer(0)]), .array([])]),
        ]
        fixture.tree.macApp("Plain.app", identifier: "com.example.plain", info: info, format: .binary)
        try fixture.index()
        let stored = try #require(try fixture.catalogue.bundle(atPath: fixture.tree.path("Plain.app"))).record
        for (key, value) in info { #expect(stored.info[key] == value, "\(key)") }
        if case let .real(zero)? = stored.info["NegativeZero"] { #expect(zero.sign == .minus) }
        let blob = try fixture.catalogue.read { db in try String.fetchOne(db, sql: "SELECT typeof(info_plist) FROM bundles") }
        #expect(blob == "null", "stored once, as JSON")
    }
}

/// The stamps column: `ctime size inode path` per line, read back byte for byte.
@Suite struct StampCodingTests {
    @Test func stampsRoundTrip() {
        let stamps = [
            FileStamp(path: "Contents/Info.plist", changeTime: 1_795_000_000_123_456_789, size: 1234, inode: 42),
            FileStamp(path: "a b/back\\slash/new\nline/\u{301}mark", changeTime: -5, size: 0, inode: .max),
            FileStamp(path: FilePath(bytes: [0x61, 0xFF, 0x20, 0x5C]), changeTime: 0, size: Int64.max, inode: UInt64(Int64.max) + 1),
            FileStamp(path: "", changeTime: 1, size: 2, inode: 3),
        ]
        #expect(StampCoding.decode(StampCoding.encode(stamps)) == stamps)
        #expect(StampCoding.decode(nil).isEmpty && StampCoding.decode("").isEmpty)
        // A damaged line is skipped, the others kept.
        #expect(StampCoding.decode("1 2 3 a\nx y z b\n4 5 6 c") == [
            FileStamp(path: "a", changeTime: 1, size: 2, inode: 3), FileStamp(path: "c", changeTime: 4, size: 5, inode: 6),
        ])
    }
}
