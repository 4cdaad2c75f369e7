import BundleModel
import Codecs
@testable import Catalogue
import Fixtures
import GRDB
import Indexer
import Scanner
import SystemCalls
import Testing
import TestSupport

@Suite struct IndexTests {
    @Test func frameworkWithRealSymlinksIsCountedOnce() throws {
        let fixture = try IndexFixture()
        fixture.tree.macFramework("Library/Frameworks/X.framework", identifier: "com.example.X")
        fixture.tree.macApp("Applications/Uses.app", identifier: "com.example.uses")
        fixture.tree.symlink("Applications/Uses.app/Contents/Frameworks", to: "../../../Library/Frameworks")
        try fixture.index()
        #expect(try fixture.paths() == ["Applications/Uses.app", "Library/Frameworks/X.framework"])
        let x = try #require(try fixture.catalogue.bundles(matching: BundleQuery(identifier: "com.example.X")).first)
        #expect(x.record.kind == "framework" && !x.record.isPackage)
    }

    @Test func nestedBundlesAreCatalogued() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("Host.app", identifier: "com.example.host")
        fixture.tree.plist("Host.app/Contents/PlugIns/Filter.plugin/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.filter")]))
        fixture.tree.macFramework("Host.app/Contents/Frameworks/Core.framework", identifier: "com.example.core")
        fixture.tree.plist("Host.app/Contents/Library/LoginItems/Helper.app/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.helper")]))
        fixture.tree.plist("Host.app/Contents/Resources/Extra.bundle/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.extra")]))
        fixture.tree.macFramework("Outer.framework", identifier: "com.example.outer")
        fixture.tree.macFramework("Outer.framework/Versions/A/Frameworks/Inner.framework", identifier: "com.example.inner")
        try fixture.index()
        #expect(try fixture.paths() == [
            "Host.app", "Host.app/Contents/Frameworks/Core.framework", "Host.app/Contents/Library/LoginItems/Helper.app",
            "Host.app/Contents/PlugIns/Filter.plugin", "Host.app/Contents/Resources/Extra.bundle", "Outer.framework",
            "Outer.framework/Versions/A/Frameworks/Inner.framework",
        ])
    }

    @Test func reindexWithNothingChangedReadsNothing() throws {
        let fixture = try IndexFixture()
        for index in 0..<20 { fixture.tree.macApp("Apps/App\(index).app", identifier: "com.example.app\(index)", localizedStrings: ["de": ["CFBundleDisplayName": "Programm \(index)"]]) }
        let first = try fixture.index()
        #expect(first.bundlesRead == 20)
        let before = try fixture.dump()
        let second = try fixture.index()
        #expect(second.bundlesRead == 0)
        #expect(second.directoriesListed == 0)
        #expect(second.directoriesVisited == first.directoriesVisited)
        #expect(try fixture.dump() == before)
    }

    @Test func recentDirectoriesAreNotTrusted() throws {
        let fixture = try IndexFixture()
        fixture.options = ScanOptions(distrustWindow: 60_000_000_000)
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        let first = try fixture.index()
        // Everything was just created, so nothing may be skipped on the next run.
        #expect(try fixture.index().directoriesListed == first.directoriesListed)
    }

    @Test func changesConvergeToAFreshIndex() throws {
        let fixture = try IndexFixture()
        let tree = fixture.tree
        tree.macApp("Apps/Keep.app", identifier: "com.example.keep", info: ["CFBundleName": .string("Keep")], localizedStrings: ["de": ["CFBundleDisplayName": "Behalten"]])
        tree.macApp("Apps/Edit.app", identifier: "com.example.edit")
        tree.macApp("Apps/Gone.app", identifier: "com.example.gone")
        tree.macApp("Deep/A/B/Moved.app", identifier: "com.example.moved")
        tree.text("Folder/file.txt", "x")
        try fixture.index()

        tree.plist("Apps/Edit.app/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.edited"), "CFBundleExecutable": .string("Edit")]))
        tree.strings("Apps/Keep.app/Contents/Resources/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Geändert"])
        tree.remove("Apps/Gone.app")
        tree.rename("Deep/A", "Elsewhere")
        tree.macApp("Folder/New.app", identifier: "com.example.new")
        tree.remove("Apps/Keep.app/Contents/MacOS")
        try fixture.index()
        let dump = try fixture.dump()
        let fresh = try fixture.freshDump()
        #expect(dump == fresh, "\(dump.difference(from: fresh))")
        #expect(try fixture.paths() == ["Apps/Edit.app", "Apps/Keep.app", "Elsewhere/B/Moved.app", "Folder/New.app"])
        #expect(try fixture.catalogue.bundles(matching: BundleQuery(identifier: "com.example.edited")).count == 1)
        let keep = try #require(try fixture.catalogue.bundles(matching: BundleQuery(identifier: "com.example.keep")).first)
        #expect(keep.record.displayName(for: [LanguageTag("de")!]) == "Geändert")
        #expect(keep.record.errors.contains { $0.contains("executable") })
    }

    @Test func aBundleThatStopsBeingOneIsRemoved() throws {
        let fixture = try IndexFixture()
        fixture.tree.plist("Thing.widget/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.w")]))
        try fixture.index()
        #expect(try fixture.paths() == ["Thing.widget"])
        fixture.tree.remove("Thing.widget/Contents/Info.plist")
        try fixture.index()
        #expect(try fixture.paths().isEmpty)
        #expect(try fixture.dump() == (try fixture.freshDump()))
    }

    // BUNDLES.md section 7: Doc.pkgdoc while an app claims pkgdoc with LSTypeIsPackage; then the app is deleted.
    @Test func claimsAppearAndGo() throws {
        let fixture = try IndexFixture()
        fixture.tree.text("Documents/Doc.pkgdoc/index.xml", "<doc/>")
        fixture.tree.text("Documents/Other.PKGDOC/index.xml", "<doc/>")
        try fixture.index()
        #expect(try fixture.paths().isEmpty)

        fixture.tree.macApp("Apps/Editor.app", identifier: "com.example.editor", info: [
            "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("pkgdoc")]), "LSTypeIsPackage": .bool(true)])]),
        ])
        let summary = try fixture.index()
        #expect(summary.claimedExtensions == ["pkgdoc"])
        #expect(try fixture.paths() == ["Apps/Editor.app", "Documents/Doc.pkgdoc", "Documents/Other.PKGDOC"])
        let doc = try #require(try fixture.catalogue.bundle(atPath: fixture.tree.path("Documents/Doc.pkgdoc")))
        #expect(doc.record.packageReasons == .claimed)
        #expect(doc.record.kind == "document")
        #expect(try fixture.dump() == (try fixture.freshDump()))

        fixture.tree.remove("Apps/Editor.app")
        try fixture.index()
        #expect(try fixture.paths().isEmpty)
        #expect(try fixture.dump() == (try fixture.freshDump()))
    }

    // Rule 21: a claimed document package shows the claiming type's CFBundleTypeIconFile, and
    // follows the application when its document type names another icon.
    @Test func claimedDocumentsShowTheClaimingTypesIcon() throws {
        let fixture = try IndexFixture()
        fixture.tree.text("Documents/Doc.pkgdoc/index.xml", "<doc/>")
        func writeEditor(icon: String) {
            fixture.tree.macApp("Apps/Editor.app", identifier: "com.example.editor", info: [
                "CFBundleDocumentTypes": .array([.dictionary([
                    "CFBundleTypeExtensions": .array([.string("pkgdoc")]), "LSTypeIsPackage": .bool(true),
                    "CFBundleTypeIconFile": .string(icon)])]),
            ])
        }
        writeEditor(icon: "PackageDocument")
        fixture.tree.file("Apps/Editor.app/Contents/Resources/PackageDocument.icns", IconFixtures.packedIcns(IconFixtures.gradient(side: 128)))
        fixture.tree.file("Apps/Editor.app/Contents/Resources/Other.icns", IconFixtures.packedIcns(IconFixtures.gradient(side: 128)))
        try fixture.index()
        let doc = try #require(try fixture.catalogue.bundle(atPath: fixture.tree.path("Documents/Doc.pkgdoc")))
        #expect(doc.record.icon == FilePath(fixture.tree.path("Apps/Editor.app/Contents/Resources/PackageDocument.icns")))
        #expect(try fixture.dump() == (try fixture.freshDump()))

        writeEditor(icon: "Other.icns")
        try fixture.index()
        let changed = try #require(try fixture.catalogue.bundle(atPath: fixture.tree.path("Documents/Doc.pkgdoc")))
        #expect(changed.record.icon == FilePath(fixture.tree.path("Apps/Editor.app/Contents/Resources/Other.icns")))
        #expect(try fixture.dump() == (try fixture.freshDump()))
    }

    @Test func claimsThroughTypeDeclarationsOfAnotherApp() throws {
        let fixture = try IndexFixture()
        fixture.tree.text("Docs/Report.bdoc/data", "x")
        // One app declares the type as a package; another opens it by its type identifier.
        fixture.tree.macApp("Declarer.app", identifier: "com.example.declarer", info: [
            "UTExportedTypeDeclarations": .array([.dictionary([
                "UTTypeIdentifier": .string("com.example.bdoc"), "UTTypeConformsTo": .array([.string("com.example.base")]),
                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("bdoc")])]),
            ]), .dictionary([
                "UTTypeIdentifier": .string("com.example.base"), "UTTypeConformsTo": .string("com.apple.package"),
            ])]),
        ])
        fixture.tree.macApp("Viewer.app", identifier: "com.example.viewer", info: [
            "CFBundleDocumentTypes": .array([.dictionary(["LSItemContentTypes": .array([.string("com.example.bdoc")])])]),
        ])
        let summary = try fixture.index()
        #expect(summary.claimedExtensions == ["bdoc"])
        #expect(try fixture.paths().contains("Docs/Report.bdoc"))
    }

    @Test func treeProblemsDoNotStopTheIndex() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("Good.app", identifier: "com.example.good")
        fixture.tree.fifo("Good.app/Contents/Resources/pipe")
        fixture.tree.fifo("pipe")
        fixture.tree.symlink("loop", to: "loop")
        fixture.tree.symlink("up", to: "..")
        fixture.tree.symlink("Good.app/Contents/Resources/zero", to: "/dev/zero")
        let summary = try fixture.index()
        #expect(try fixture.paths() == ["Good.app"])
        #expect(summary.problems.isEmpty)
    }

    /// Rule 30's last tie-break is the path's bytes. A byte that is not UTF-8 is stored escaped
    /// (above U+100000), so a lone 0x80 sorts after "é" (0xC3 0xA9) as stored text, before it as
    /// bytes: `open-with` must answer by the bytes.
    @Test func handlersTiedUpToThePathAreInTheOrderOfItsBytes() throws {
        let fixture = try IndexFixture()
        let claims: [String: PlistValue] = ["CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("note")])])])]
        let escaped = FileNameCoding.string(from: Array("Caf".utf8) + [0x80] + Array(".app".utf8))
        fixture.tree.macApp(escaped, identifier: "com.example.escaped", info: claims)
        fixture.tree.macApp("Café.app", identifier: "com.example.accented", info: claims)
        fixture.tree.macApp("Cab.app", identifier: "com.example.plain", info: claims)
        try fixture.index()
        let handlers = try fixture.catalogue.handlers(of: .file(extension: "note"))
        #expect(handlers.map(\.application.identifier) == ["com.example.plain", "com.example.escaped", "com.example.accented"])
    }

    @Test func namesThatAreNotUTF8SurviveTheRoundTrip() throws {
        let fixture = try IndexFixture()
        let latin1Name = FileNameCoding.string(from: Array("Caf".utf8) + [0xE9] + Array(".app".utf8))
        fixture.tree.macApp(latin1Name, identifier: "com.example.cafe")
        try fixture.index()
        let record = try #require(try fixture.catalogue.bundles(matching: BundleQuery(identifier: "com.example.cafe")).first).record
        #expect(record.name == FileName(latin1Name))
        #expect(record.name.bytes == Array("Caf".utf8) + [0xE9] + Array(".app".utf8))
        #expect((try? FileStatus.of(record.key)) != nil)
    }
}

@Suite(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
struct CorpusIndexTests {
    @Test func corpusTree() throws {
        let fixture = try IndexFixture()
        let summary = try fixture.index(Corpus.tree!)
        let bundles = try fixture.catalogue.bundles(matching: BundleQuery())
        #expect(bundles.map { $0.record.key.relative(to: FilePath(Corpus.tree!))?.string } == [
            "Applications/Affiche.app", "Applications/Chess.app", "Applications/SystemPreferences.app",
            "Applications/Terminal.app", "Library/Frameworks/Pantomime.framework",
        ])
        #expect(summary.bundlesUnderRoot == 5)
        let terminal = try #require(try fixture.catalogue.bundles(matching: BundleQuery(identifier: "org.gap.terminal")).first)
        #expect(terminal.record.identifier == "org.gap.Terminal")
        #expect(terminal.record.localizations.count == 10)
        #expect(try fixture.catalogue.bundles(matching: BundleQuery(kind: "framework")).count == 1)
        #expect(try fixture.catalogue.bundles(matching: BundleQuery(identifier: "org.gap.*")).count == 1)
    }
}

@Suite struct CatalogueFileTests {
    @Test func catalogueIsInWALModeWithItsSchemaVersion() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        try fixture.index()
        let (mode, migrations) = try fixture.catalogue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        #expect(mode == "wal")
        #expect(migrations == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20"])
    }

    /// A subtree's directories come in path order straight from the primary key, with no sort of
    /// every row first (17 MB at 255,000 directories), and `/` is not read twice.
    @Test func aSubtreesDirectoriesAreReadInOrderWithoutASort() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("Apps/A.app", identifier: "com.example.a")
        fixture.tree.text("Apps-old/notes/x.txt", "x")
        try fixture.index()
        let plan = try fixture.catalogue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + CatalogueQueries.orderedSubtree("SELECT path, inode FROM directories"),
                             arguments: Catalogue.subtreeArguments(FilePath(fixture.tree.root))).map { $0["detail"] as String }
        }
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        for root in [FilePath("/"), FilePath(fixture.tree.root), FilePath(fixture.tree.path("Apps"))] {
            var paths: [FilePath] = []
            try fixture.catalogue.forEachDirectory(under: root) { path, _ in paths.append(path) }
            let expected = try fixture.catalogue.read { db in
                try String.fetchAll(db, sql: "SELECT path FROM directories WHERE \(Catalogue.subtreeCondition) ORDER BY path",
                                    arguments: Catalogue.subtreeArguments(root)).map { FilePath($0) }
            }
            #expect(!paths.isEmpty && paths == expected, "\(root): \(paths) against \(expected)")
        }
    }

    /// A daemon's writer keeps 16 MiB of pages through an index; its readers (the view's) 1 MiB
    /// each, not the writer's size (five of them held up to 80 MB at a million entries).
    @Test func aDaemonsReadersKeepSmallPageCaches() throws {
        let fixture = try IndexFixture()
        let reader = try fixture.catalogue.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        let writer = try fixture.catalogue.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        #expect(reader == -Catalogue.readerCacheKiB && writer == -16_384, "reader \(String(describing: reader)), writer \(String(describing: writer))")
    }

    /// A scan checkpoints a tenth as often as SQLite's default, then checkpoints, so that the next
    /// write cuts the WAL it grew (a daemon would otherwise keep the file at its peak), and gives the
    /// writing connection back its interval, also when the scan fails.
    @Test func aScanCheckpointsSparselyThenTruncatesTheWAL() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        let wal = fixture.directory.appending("catalogue.sqlite-wal")
        try fixture.catalogue.write { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 500") }
        #expect(try fixture.catalogue.checkpointingSparsely { try fixture.catalogue.checkpointInterval() } == 10_000)
        #expect(try fixture.catalogue.checkpointInterval() == 500)

        // Some 8 MB through the WAL, removed again; one small write later the file is cut.
        try fixture.catalogue.checkpointingSparsely {
            let filler = String(repeating: "x", count: 4_000)
            try fixture.catalogue.write { db in
                for index in 0..<2_000 { try db.execute(sql: "INSERT INTO roots (path) VALUES (?)", arguments: ["/filler/\(index)/\(filler)"]) }
            }
            try fixture.catalogue.write { db in try db.execute(sql: "DELETE FROM roots WHERE path LIKE '/filler/%'") }
            #expect(try FileStatus.of(FilePath(wal)).size > 8_000_000)
        }
        try fixture.catalogue.write { db in try db.execute(sql: "DELETE FROM roots WHERE path = '/nothing'") }
        try fixture.catalogue.write { db in try db.execute(sql: "INSERT INTO roots (path) VALUES ('/small')") }
        #expect(try FileStatus.of(FilePath(wal)).size <= 4 << 20)

        try fixture.index()
        #expect(try fixture.catalogue.checkpointInterval() == 500)
        struct Failure: Error {}
        #expect(throws: Failure.self) { try fixture.catalogue.checkpointingSparsely { throw Failure() } }
        #expect(try fixture.catalogue.checkpointInterval() == 500)
    }

    /// A first index builds the UUID index at its end (cheaper than keeping it through the scan);
    /// a later index keeps it; a catalogue left without it (a kill in between) gets it back when
    /// next opened to write.
    @Test func theUUIDIndexIsAlwaysThereAfterwards() throws {
        let fixture = try IndexFixture()
        fixture.tree.machOApp("A.app", identifier: "com.example.a", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 5)).bytes())
        func uuidIndex(_ catalogue: Catalogue) throws -> String? {
            try catalogue.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'binaries_by_uuid'") }
        }
        func usesIndex(_ catalogue: Catalogue) throws -> Bool {
            try catalogue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT bundle_id FROM binaries WHERE uuid_key = 'x'").contains { ($0["detail"] as String).contains("binaries_by_uuid") }
            }
        }
        try fixture.index()
        #expect(try uuidIndex(fixture.catalogue) == "CREATE INDEX binaries_by_uuid ON binaries(uuid_key) WHERE uuid_key IS NOT NULL")
        #expect(try usesIndex(fixture.catalogue))
        #expect(try fixture.catalogue.bundles(matching: BundleQuery(uuidKey: BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 5))))).count == 1)
        fixture.tree.machOApp("B.app", identifier: "com.example.b", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 6)).bytes())
        try fixture.index()
        #expect(try uuidIndex(fixture.catalogue) != nil)

        try fixture.catalogue.write { db in try db.execute(sql: "DROP INDEX binaries_by_uuid") }
        let reopened = try Catalogue(path: fixture.catalogue.path, mode: .readWrite)
        #expect(try uuidIndex(reopened) != nil && usesIndex(reopened))
    }

    /// The type tags' indexes and the claim lists too: built at the end of a first index (the
    /// lists in one pass, the trigger that notes new applications after it), there after it, and
    /// back when a catalogue a kill left without them is opened to write.
    @Test func theLaunchServicesIndexesAreAlwaysThereAfterwards() throws {
        let fixture = try IndexFixture()
        let names = ["launch_claims_inserted", "type_tags_by_bundle", "type_tags_by_value"]
        func present(_ catalogue: Catalogue) throws -> [String] {
            try catalogue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND name IN ('\(names.joined(separator: "', '"))') ORDER BY name")
            }
        }
        fixture.tree.macApp("A.app", identifier: "com.example.a", info: [
            "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("note")])])]),
            "UTExportedTypeDeclarations": .array([.dictionary(["UTTypeIdentifier": .string("com.example.note"),
                                                                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .string("note")])])]),
        ])
        try fixture.index()
        #expect(try present(fixture.catalogue) == names.sorted())
        #expect(try fixture.catalogue.handlers(of: .file(extension: "note")).count == 1)
        // As a kill during a first index leaves it: no trigger, no index, lists not made.
        try fixture.catalogue.write { db in
            try db.execute(sql: "DROP TRIGGER launch_claims_inserted; DROP INDEX type_tags_by_value; DELETE FROM launch_lists")
        }
        let reopened = try Catalogue(path: fixture.catalogue.path, mode: .readWrite)
        #expect(try present(reopened) == names.sorted())
        #expect(try reopened.handlers(of: .file(extension: "note")).count == 1)
        // A bundle removed takes its rows with it, through the index.
        fixture.tree.remove("A.app")
        try fixture.index()
        #expect(try reopened.handlers(of: .file(extension: "note")).isEmpty)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM type_tags") } == 0)
    }

    @Test func readersSeeTheCatalogueWhileAWriterHoldsATransaction() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("A.app", identifier: "com.example.a")
        try fixture.index()
        let reader = try Catalogue(path: fixture.catalogue.path, mode: .readOnly)
        try fixture.catalogue.write { db in
            try db.execute(sql: "DELETE FROM bundles")
            // Inside the uncommitted write, another connection still reads the committed state.
            #expect(try reader.bundles(matching: BundleQuery(identifier: "com.example.a")).count == 1)
        }
        #expect(try reader.bundles(matching: BundleQuery(identifier: "com.example.a")).isEmpty)
    }
}
