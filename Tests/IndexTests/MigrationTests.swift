@testable import Catalogue
import BundleModel
import Fixtures
import GRDB
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Upgrading a catalogue that holds rows: each migration that adds a column the old rows cannot
/// fill empties the derived tables, children first, and the next index rebuilds them.
@Suite struct MigrationTests {
    let temporary = TemporaryDirectory("migrate")

    @Test(arguments: ["v1", "v2", "v3", "v4"])
    func aFullOlderCatalogueOpensAndIsRebuilt(from version: String) throws {
        let path = temporary.appending("catalogue-\(version).sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: version)
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO bundles (id, path, name, kind, is_package, package_reasons, is_bundle, numeric_version,
                    declared_localizations, localizations, strings_tables, info, stamps, error_count, warning_count, scanned_at)
                VALUES (1, '/old/Chess.app', 'Chess.app', 'application', 1, 'extension', 1, 0, '[]', '["de"]', '["de"]', '{}', '[]', 1, 0, 0);
                INSERT INTO localized_strings VALUES (1, 'de', 'CFBundleDisplayName', 'Schach');
                INSERT INTO problems VALUES (1, 'error', 'an old error');
                INSERT INTO claims VALUES (1, 'pkgdoc', NULL);
                INSERT INTO directories VALUES ('/old', 1, 1, 1, NULL, 1, NULL);
                INSERT INTO roots VALUES ('/old', 0);
                """)
        }
        try old.close()

        let catalogue = try Catalogue(path: FilePath(path), mode: .readWrite)
        #expect(try catalogue.bundle(atPath: "/old/Chess.app") == nil)
        #expect(try catalogue.indexedRoots().isEmpty)
        // And it is usable: an index fills it again.
        let tree = TreeWriter(root: temporary.appending("tree-\(version)"))
        tree.macApp("Chess.app", identifier: "com.example.chess")
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        #expect(try catalogue.bundle(atPath: FilePath(tree.path("Chess.app")))?.record.identifier == "com.example.chess")
    }
}

/// v9 drops `binaries.uuid` (it repeated `uuid_key`): slices written before keep their rows, and
/// read back with the UUID spelled as the readers spell it, found by the same lookups.
@Suite struct DroppedUUIDColumnTests {
    let temporary = TemporaryDirectory("migrate-v9")

    @Test func slicesWrittenByV8ReadBackTheSame() throws {
        let path = temporary.appending("catalogue-v8.sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v8")
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO bundles (id, path, name, kind, is_package, package_reasons, is_bundle, numeric_version,
                    declared_localizations, localizations, strings_tables, info, stamps, error_count, warning_count, scanned_at)
                VALUES (1, '/old/Chess.app', 'Chess.app', 'application', 1, 'extension', 1, 0, '[]', '[]', '[]', '{}', '[]', 0, 0, 0);
                INSERT INTO binaries VALUES (1, 0, 'Contents/MacOS/Chess', 'mach-o', 'arm64', 'execute',
                    '1B4E28BA-2FA1-11D2-883F-B9A761BDE3FB', '1b4e28ba2fa111d2883fb9a761bde3fb', 'macos', '11.0', '14.2', 'none', NULL, NULL);
                INSERT INTO binaries VALUES (1, 1, 'Chess', 'elf', 'x86_64', 'executable',
                    '00112233445566778899aabbccddeeff', '00112233445566778899aabbccddeeff', NULL, NULL, NULL, 'none', NULL, NULL);
                """)
        }
        try old.close()

        let catalogue = try Catalogue(path: FilePath(path), mode: .readWrite)
        let columns = try catalogue.read { db in try Row.fetchAll(db, sql: "PRAGMA table_info(binaries)").map { $0["name"] as String } }
        #expect(!columns.contains("uuid") && columns.contains("uuid_key"))
        let slices = try #require(try catalogue.bundle(atPath: "/old/Chess.app")).record.binaries
        // A 16-byte ELF build-id keeps its hex spelling: the format decides, not the length.
        #expect(slices.map(\.uuid) == ["1B4E28BA-2FA1-11D2-883F-B9A761BDE3FB", "00112233445566778899aabbccddeeff"])
        #expect(slices.map(\.uuidKey) == ["1b4e28ba2fa111d2883fb9a761bde3fb", "00112233445566778899aabbccddeeff"])
        let found = try catalogue.bundles(matching: BundleQuery(uuidKey: BinarySlice.uuidKey("1B4E28BA-2FA1-11D2-883F-B9A761BDE3FB")))
        #expect(found.map(\.record.key) == ["/old/Chess.app"])
    }
}

/// Loading every bundle a chunk at a time (the view's start) gives the records a whole listing
/// gives, strings tables and problems included, each once.
@Suite struct ChunkedReadingTests {
    @Test func chunksHoldEveryRecordOnce() throws {
        let fixture = try IndexFixture()
        for index in 0..<150 {
            fixture.tree.macApp("Apps/App\(index).app", identifier: index == 7 ? "bad id \(index)" : "com.example.app\(index)",
                                localizedStrings: ["de": ["CFBundleDisplayName": "Programm \(index)"]])
        }
        try fixture.index()
        let whole = try fixture.catalogue.bundles(matching: BundleQuery())
        var chunks: [[CataloguedBundle]] = []
        try fixture.catalogue.forEachBundleChunk(size: 100) { chunks.append($0) }
        #expect(chunks.map(\.count) == [100, 50])
        let chunked = chunks.flatMap { $0 }
        #expect(Set(chunked.map(\.id)).count == 150)
        let byPath = Dictionary(uniqueKeysWithValues: whole.map { ($0.record.key, $0.record) })
        for bundle in chunked { #expect(bundle.record == byPath[bundle.record.key], "\(bundle.record.key)") }
        #expect(chunked.contains { !$0.record.errors.isEmpty }, "a problem row came with its bundle")
    }
}

/// v11 adds Launch Services' tables (rules 28 to 29) and fills them from the rows already there:
/// an application catalogued before answers `open-with` after the migration, and its type
/// declarations gain the MIME types the Info dictionary held.
@Suite struct LaunchServicesMigrationTests {
    let temporary = TemporaryDirectory("migrate-v11")

    @Test func applicationsCataloguedByV10ClaimAfterTheMigration() throws {
        let path = temporary.appending("catalogue-v10.sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v10")
        let info = """
            {"CFBundleIdentifier": "org.example.sketch", "CFBundleVersion": "3",
             "CFBundleDocumentTypes": [{"LSItemContentTypes": ["org.example.sketch"], "LSHandlerRank": "Owner", "CFBundleTypeRole": "Editor"}],
             "UTExportedTypeDeclarations": [{"UTTypeIdentifier": "org.example.sketch", "UTTypeConformsTo": ["public.data"],
                 "UTTypeTagSpecification": {"public.filename-extension": ["sketch"], "public.mime-type": "application/x-sketch"}}]}
            """
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO bundles (id, path, name, identifier, kind, is_package, package_reasons, is_bundle, version, numeric_version,
                    declared_localizations, localizations, strings_tables, info, stamps, error_count, warning_count, scanned_at, type_declarations)
                VALUES (1, '/old/Sketch.app', 'Sketch.app', 'org.example.sketch', 'application', 1, 'extension', 1, '3', 0, '[]', '[]', '[]', ?, '[]', 0, 0, 0,
                    '[{"identifier":"org.example.sketch","conformsTo":["public.data"],"extensions":["sketch"],"exported":true}]');
                INSERT INTO bundles (id, path, name, kind, is_package, package_reasons, is_bundle, numeric_version,
                    declared_localizations, localizations, strings_tables, info, stamps, error_count, warning_count, scanned_at)
                VALUES (2, '/old/Sketch.framework', 'Sketch.framework', 'framework', 0, '', 1, 0, '[]', '[]', '[]', ?, '[]', 0, 0, 0);
                """, arguments: [info, info])
        }
        try old.close()

        let catalogue = try Catalogue(path: FilePath(path), mode: .readWrite)
        let handlers = try catalogue.handlers(of: .file(extension: "SKETCH"))
        // Only the application claims; the framework with the same Info keys does not.
        #expect(handlers.map(\.application.path) == ["/old/Sketch.app"])
        #expect(handlers.first?.claim == LaunchClaim(target: .type("org.example.sketch"), role: .editor, rank: .owner))
        #expect(try catalogue.typeDatabase().declaration("org.example.sketch")?.mimeTypes == ["application/x-sketch"])
        #expect(try catalogue.handlers(of: .type("public.data")).isEmpty)
    }

    /// v12 gives each claim its application's path, identifier and version (what an answer shows
    /// and ranks by), filled from the applications' records, whatever v11's rows were.
    @Test func claimsCataloguedByV11CarryTheirApplicationAfterTheMigration() throws {
        let path = temporary.appending("catalogue-v11.sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v11")
        let info = """
            {"CFBundleIdentifier": "org.example.notes", "CFBundleVersion": "7.1",
             "CFBundleDocumentTypes": [{"CFBundleTypeExtensions": ["note"], "LSHandlerRank": "Alternate"}]}
            """
        try old.write { db in
            try db.execute(sql: """
                INSERT INTO bundles (id, path, name, identifier, kind, is_package, package_reasons, is_bundle, version, numeric_version,
                    declared_localizations, localizations, strings_tables, info, stamps, error_count, warning_count, scanned_at)
                VALUES (1, '/old/Notes.app', 'Notes.app', 'org.example.notes', 'application', 1, 'extension', 1, '7.1', 0, '[]', '[]', '[]', ?,
                    '[]', 0, 0, 0);
                INSERT INTO launch_claims (bundle_id, target_kind, target, role, rank) VALUES (1, 'extension', 'note', 'Viewer', 'Alternate');
                """, arguments: [info])
        }
        try old.close()

        let catalogue = try Catalogue(path: FilePath(path), mode: .readWrite)
        let handlers = try catalogue.handlers(of: .file(extension: "note"))
        #expect(handlers.map(\.application.path) == ["/old/Notes.app"])
        #expect(handlers.map(\.application.identifier) == ["org.example.notes"])
        #expect(handlers.map(\.application.version) == ["7.1"])
        #expect(handlers.first?.claim == LaunchClaim(target: .fileExtension("note"), role: .viewer, rank: .alternate))
    }

    /// v13 gives each claim its rank's order and its application's version key, and orders a
    /// target's rows as answers are: the rows v12 kept are rewritten from the records, and
    /// answers come newest version first (`1.10` before `1.9`, which bytes alone would reverse).
    @Test func claimsCataloguedByV12AnswerInRankAndVersionOrderAfterTheMigration() throws {
        let path = temporary.appending("catalogue-v12.sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v12")
        func info(_ identifier: String, _ version: String, rank: String) -> String {
            """
            {"CFBundleIdentifier": "\(identifier)", "CFBundleVersion": "\(version)",
             "CFBundleDocumentTypes": [{"CFBundleTypeExtensions": ["note"], "LSHandlerRank": "\(rank)"}]}
            """
        }
        let apps = [("/old/A.app", "org.example.a", "1.9", "Default"), ("/old/B.app", "org.example.b", "1.10", "Default"),
                    ("/old/C.app", "org.example.c", "0.1", "Owner"), ("/old/D.app", "org.example.d", "9", "Alternate")]
        try old.write { db in
            for (id, app) in apps.enumerated() {
                try db.execute(sql: """
                    INSERT INTO bundles (id, path, name, identifier, kind, is_package, package_reasons, is_bundle, version, numeric_version,
                        declared_localizations, localizations, strings_tables, info, stamps, error_count, warning_count, scanned_at)
                    VALUES (?, ?, ?, ?, 'application', 1, 'extension', 1, ?, 0, '[]', '[]', '[]', ?, '[]', 0, 0, 0);
                    INSERT INTO launch_claims (target_kind, target, path, role, rank, bundle_id, identifier, version)
                    VALUES ('extension', 'note', ?, 'Viewer', ?, ?, ?, ?);
                    """, arguments: [id + 1, app.0, String(app.0.dropFirst(5)), app.1, app.2, info(app.1, app.2, rank: app.3),
                                     app.0, app.3, id + 1, app.1, app.2])
            }
        }
        try old.close()

        let catalogue = try Catalogue(path: FilePath(path), mode: .readWrite)
        #expect(try catalogue.handlers(of: .file(extension: "note")).map(\.application.path) == ["/old/C.app", "/old/B.app", "/old/A.app", "/old/D.app"])
        #expect(try catalogue.handlers(of: .file(extension: "note"), limit: 1).map(\.application.path) == ["/old/C.app"])
    }
}

/// v14 adds `bundles.backup` (rule 34). A Time Machine backup catalogued before was a plain
/// bundle; after the migration the next index reads it again, though nothing in it changed. Its
/// child rows go with it (foreign keys are checked when a migration commits).
@Suite struct BackupMigrationTests {
    @Test func aBackupCataloguedByV13IsReadAgainAsABackup() throws {
        let fixture = try IndexFixture()
        fixture.tree.timeMachineBackup("Backups/Mac.sparsebundle")
        fixture.tree.macApp("Apps/A.app", identifier: "org.example.a")
        try fixture.index()
        // As v13 left it: no column, the backup a bundle.
        try fixture.catalogue.write { db in
            try db.execute(sql: """
                DELETE FROM grdb_migrations WHERE identifier = 'v14';
                ALTER TABLE bundles DROP COLUMN backup;
                UPDATE bundles SET kind = 'bundle' WHERE name = 'Mac.sparsebundle';
                INSERT INTO problems (bundle_id, severity, message) SELECT id, 'warning', 'a warning v13 wrote' FROM bundles WHERE name = 'Mac.sparsebundle';
                INSERT INTO localized_strings (bundle_id, localization, key, value) SELECT id, 'en', 'k', 'v' FROM bundles WHERE name = 'Mac.sparsebundle';
                """)
        }
        let migrated = try Catalogue(path: fixture.catalogue.path, mode: .readWrite)
        _ = try Indexer(catalogue: migrated, options: fixture.options).index(root: FilePath(fixture.tree.root))
        let backup = try #require(try migrated.bundle(atPath: fixture.tree.path("Backups/Mac.sparsebundle")))
        #expect(backup.record.kind == .backup)
        #expect(backup.record.backup?.model == TreeWriter.Backup().model && backup.record.backup?.bands == TreeWriter.Backup().bands)
        #expect(try CatalogueDump(migrated) == fixture.freshDump())
    }
}


/// v15 adds `bundles.installs_to` and `component` (rule 33). An installer package catalogued
/// before had its payloads shut; after the migration the next index reads it again, though nothing
/// in it changed (its directory is unchanged: only the archive's spoiled stamp says so).
@Suite struct InstallerMigrationTests {
    @Test func aPackageCataloguedByV14IsReadAgainWithItsPayload() throws {
        let fixture = try IndexFixture()
        let payload = TreeWriter(root: fixture.directory.appending("payload"))
        payload.macApp("Editor.app", identifier: "org.example.editor")
        fixture.tree.directory("Repository")
        try InstallerPackageBuilder.build(fixture.tree.path("Repository/Editor.pkg"), components: [
            .init(identifier: "org.example.editor.pkg", version: "1", installLocation: "/Applications", payload: payload.root),
        ], staging: fixture.directory.appending("staging"))
        try fixture.index()
        // As v14 left it: no columns, and no bundle from the payload.
        try fixture.catalogue.write { db in
            try db.execute(sql: """
                DELETE FROM grdb_migrations WHERE identifier = 'v15';
                ALTER TABLE bundles DROP COLUMN installs_to;
                ALTER TABLE bundles DROP COLUMN component;
                DELETE FROM bundles WHERE archive IS NOT NULL;
                """)
        }
        let migrated = try Catalogue(path: fixture.catalogue.path, mode: .readWrite)
        _ = try Indexer(catalogue: migrated, options: fixture.options).index(root: FilePath(fixture.tree.root))
        let editor = try #require(try migrated.bundles(matching: BundleQuery(identifier: "org.example.editor", inArchives: true)).first)
        #expect(editor.record.installation == BundleRecord.Installation(component: "org.example.editor.pkg", installsTo: FilePath("/Applications/Editor.app")))
        #expect(try CatalogueDump(migrated) == fixture.freshDump())
    }
}

/// v17 records the file each slice was read from (issue 37: only that file is served). Slices
/// catalogued before have none and are not served; the migration makes their bundles look
/// changed, so the next index reads them again, though nothing in them changed, and serves them.
@Suite struct BinaryFileMigrationTests {
    @Test func slicesCataloguedByV16AreServedOnceReadAgain() throws {
        let fixture = try IndexFixture()
        let uuid = MachOImage.uuid(seed: 81)
        fixture.tree.machOApp("Apps/Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: uuid).bytes())
        var dwarf = MachOImage.arm64(uuid: uuid)
        dwarf.fileType = 10
        fixture.tree.dSYM("Apps/Tool.app.dSYM", dwarfName: "Tool", dwarf: dwarf.bytes())
        fixture.tree.macApp("Apps/Plain.app", identifier: "org.example.plain")
        try fixture.index()
        // As v16 left it: no columns.
        try fixture.catalogue.write { db in
            try db.execute(sql: """
                DELETE FROM grdb_migrations WHERE identifier = 'v17';
                ALTER TABLE binaries DROP COLUMN disk_path;
                ALTER TABLE binaries DROP COLUMN device;
                ALTER TABLE binaries DROP COLUMN inode;
                ALTER TABLE binaries DROP COLUMN size;
                ALTER TABLE binaries DROP COLUMN modification_time;
                """)
        }
        let migrated = try Catalogue(path: fixture.catalogue.path, mode: .readWrite)
        let key = BinarySlice.uuidKey(BinarySlice.canonicalUUID(uuid))!
        let roots = [FilePath(fixture.tree.root)]
        let before = try migrated.symbolMatches(uuidKey: key)
        #expect(before.count == 2)
        for match in before {
            guard case let .failure(refusal) = try Catalogue.openRecorded(match, roots: roots) else {
                Issue.record("\(match.file) is served before it was read again")
                continue
            }
            #expect(refusal.kind == .notRecorded)
        }
        _ = try Indexer(catalogue: migrated, options: fixture.options).index(root: FilePath(fixture.tree.root))
        for match in try migrated.symbolMatches(uuidKey: key) {
            let file = try Catalogue.openRecorded(match, roots: roots).get()
            #expect(file.status.identity == (try FileStatus.of(match.file)).identity)
        }
        #expect(try CatalogueDump(migrated) == fixture.freshDump())
    }
}

/// A file system numbered otherwise since it was indexed (a reboot renumbering an LVM volume or a
/// btrfs subvolume) would leave every catalogued binary "another file" to the symbol stores, and
/// nothing read again: the next index notices the root's new device and reads everything again.
@Suite struct DeviceChangeTests {
    @Test func aRootOnAnotherDeviceIsReadAgainAndServed() throws {
        let fixture = try IndexFixture()
        let uuid = MachOImage.uuid(seed: 82)
        fixture.tree.machOApp("Apps/Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: uuid).bytes())
        try fixture.index()
        // As a catalogue written before the file system was numbered otherwise.
        try fixture.catalogue.write { db in
            try db.execute(sql: "UPDATE directories SET device = device + 1; UPDATE binaries SET device = device + 1")
        }
        let key = BinarySlice.uuidKey(BinarySlice.canonicalUUID(uuid))!
        let roots = [FilePath(fixture.tree.root)]
        let before = try #require(try fixture.catalogue.symbolMatches(uuidKey: key).first)
        guard case let .failure(refusal) = try Catalogue.openRecorded(before, roots: roots) else { throw WatcherFailure("served with another device") }
        #expect(refusal.kind == .changed)
        try fixture.index()
        let after = try #require(try fixture.catalogue.symbolMatches(uuidKey: key).first)
        #expect(throws: Never.self) { try Catalogue.openRecorded(after, roots: roots).get() }
        #expect(try fixture.dump() == fixture.freshDump())
    }
}

/// A slice's file is all five columns or none: a row with some of them (written by hand, or
/// damaged) reads back without a file, and is not served.
@Suite struct PartialBinaryFileTests {
    @Test func aRowWithPartOfItsFileIsNotServed() throws {
        let fixture = try IndexFixture()
        let uuid = MachOImage.uuid(seed: 83)
        fixture.tree.machOApp("Apps/Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: uuid).bytes())
        try fixture.index()
        let key = BinarySlice.uuidKey(BinarySlice.canonicalUUID(uuid))!
        let roots = [FilePath(fixture.tree.root)]
        for damage in ["inode = NULL", "disk_path = ''", "modification_time = NULL, size = NULL", "device = NULL"] {
            try fixture.index()
            try fixture.catalogue.write { db in try db.execute(sql: "UPDATE binaries SET \(damage)") }
            let match = try #require(try fixture.catalogue.symbolMatches(uuidKey: key).first)
            #expect(match.slice.onDisk == nil, "\(damage)")
            guard case let .failure(refusal) = try Catalogue.openRecorded(match, roots: roots) else {
                Issue.record("served with \(damage)")
                continue
            }
            #expect(refusal.kind == .notRecorded, "\(damage)")
            // Read again by the next index once the bundle changes; here, made to look changed.
            try fixture.catalogue.write { db in try db.execute(sql: "UPDATE directories SET change_time = -1") }
        }
    }
}

/// A catalogue of every schema version this bundlefs has known, written by our own migrator (the
/// fixtures of an upgrade): the release opens each, migrates it, marks it as bundlefs's (none of
/// them carried the mark), and an index then leaves it equal to a fresh one.
@Suite struct EverySchemaVersionTests {
    let temporary = TemporaryDirectory("every-schema")

    @Test(arguments: CatalogueFile.schemaVersions)
    func aCatalogueOfThisVersionOpensAndConverges(version: String) throws {
        let path = temporary.appending("catalogue-\(version).sqlite")
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: version)
        try old.close()
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.macApp("Applications/Chess.app", identifier: "com.example.chess", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "CFBundleTypeExtensions": .array([.string("pgn")]), "CFBundleTypeRole": .string("Editor"),
        ])])])
        tree.macFramework("Library/Frameworks/Kit.framework", identifier: "com.example.kit")

        let catalogue = try Catalogue(path: FilePath(path), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        let dump = try CatalogueDump(catalogue)
        let fresh = try CatalogueDump.ofFreshIndex(tree.root)
        #expect(dump == fresh, "\(version): \(dump.difference(from: fresh))")
        #expect(try catalogue.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") } == CatalogueFile.applicationID)
        #expect(try catalogue.handlers(of: .file(extension: "pgn")).map(\.application.path.lastComponent.string) == ["Chess.app"])
    }
}

/// v19's `bundle_names` and its trigram index (issue 40: serve-web's word search reads the names
/// that hold the word, not every name): filled by the migration from the rows a v18 catalogue has,
/// replacing v18's table, then kept equal to them by triggers through the writer's inserts,
/// updates of names and localized strings, renames and removals. FTS5's integrity check with
/// rank 1 compares the index with the rows, so an index left behind by a write fails it.
@Suite struct BundleNamesMigrationTests {
    func names(_ catalogue: Catalogue) throws -> [String] {
        try catalogue.read { db in
            try String.fetchAll(db, sql: """
                SELECT b.path || ': ' || group_concat(ifnull(n.localization || ':', '') || n.name, '|') FROM bundles b JOIN
                    (SELECT * FROM bundle_names ORDER BY localization IS NOT NULL, localization, key) n ON n.bundle_id = b.id GROUP BY b.id ORDER BY b.path
                """)
        }
    }

    func found(_ catalogue: Catalogue, _ text: String) throws -> [String] {
        try catalogue.read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT b.name FROM bundles b JOIN bundle_names n ON n.bundle_id = b.id
                WHERE n.id IN (SELECT rowid FROM bundle_name_index WHERE bundle_name_index MATCH ?) ORDER BY b.name
                """, arguments: ["\"\(text)\""])
        }
    }

    func checkIndex(_ catalogue: Catalogue) throws {
        try catalogue.write { db in try db.execute(sql: "INSERT INTO bundle_name_index (bundle_name_index, rank) VALUES ('integrity-check', 1)") }
    }

    @Test func aV18CatalogueGetsItsNamesIndexedAndWritesKeepThem() throws {
        let fixture = try IndexFixture()
        fixture.tree.macApp("Apps/Chess.app", identifier: "org.example.chess", info: ["CFBundleName": .string("Chess")],
                            localizedStrings: ["de": ["CFBundleDisplayName": "Schach"], "fr": ["CFBundleDisplayName": "Échecs", "Other": "ignored"]])
        fixture.tree.macApp("Apps/Plain.app")
        try fixture.index()
        let root = fixture.tree.root
        let written = [
            "\(root)/Apps/Chess.app: Chess|org.example.chess|Chess.app|de:Schach|fr:Échecs",
            "\(root)/Apps/Plain.app: Plain.app",
        ]
        #expect(try names(fixture.catalogue) == written)
        // As v18 left it: its table of names one a line, and its triggers writing that table.
        try fixture.catalogue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v19'; DROP TABLE bundle_name_index; DROP TABLE bundle_names")
            for trigger in ["insert", "update", "delete", "string_insert", "string_delete", "string_update"] { try db.execute(sql: "DROP TRIGGER bundle_names_\(trigger)") }
            try db.execute(sql: """
                CREATE TABLE bundle_names (bundle_id INTEGER PRIMARY KEY, names TEXT NOT NULL);
                INSERT INTO bundle_names SELECT id, name FROM bundles;
                CREATE TRIGGER bundle_names_insert AFTER INSERT ON bundles BEGIN INSERT OR REPLACE INTO bundle_names VALUES (NEW.id, NEW.name); END;
                CREATE TRIGGER bundle_names_update AFTER UPDATE OF name ON bundles BEGIN INSERT OR REPLACE INTO bundle_names VALUES (NEW.id, NEW.name); END;
                CREATE TRIGGER bundle_names_delete AFTER DELETE ON bundles BEGIN DELETE FROM bundle_names WHERE bundle_id = OLD.id; END;
                CREATE TRIGGER bundle_names_string_insert AFTER INSERT ON localized_strings BEGIN INSERT OR REPLACE INTO bundle_names VALUES (NEW.bundle_id, NEW.value); END;
                CREATE TRIGGER bundle_names_string_delete AFTER DELETE ON localized_strings BEGIN DELETE FROM bundle_names WHERE bundle_id = OLD.bundle_id; END;
                """)
        }
        let migrated = try Catalogue(path: fixture.catalogue.path, mode: .readWrite)
        #expect(try names(migrated) == written, "filled by the migration")
        try checkIndex(migrated)
        #expect(try found(migrated, "SCHACH") == ["Chess.app"], "indexed, any case")

        fixture.tree.macApp("Apps/Chess.app", identifier: "org.example.chess", info: ["CFBundleName": .string("Chess")],
                            localizedStrings: ["de": ["CFBundleDisplayName": "Schachspiel"]])
        fixture.tree.rename("Apps/Plain.app", "Apps/Renamed.app")
        fixture.tree.macApp("Apps/New.app", identifier: "org.example.new")
        _ = try Indexer(catalogue: migrated, options: fixture.options).index(root: FilePath(root))
        let after = try names(migrated)
        #expect(after == [
            "\(root)/Apps/Chess.app: Chess|org.example.chess|Chess.app|de:Schachspiel|fr:Échecs", // fr.lproj is still there
            "\(root)/Apps/New.app: org.example.new|New.app",
            "\(root)/Apps/Renamed.app: Renamed.app",
        ], "\(after)")
        try checkIndex(migrated)
        #expect(try found(migrated, "spiel") == ["Chess.app"] && found(migrated, "plain").isEmpty && found(migrated, "renamed") == ["Renamed.app"])
        try migrated.write { db in try db.execute(sql: "UPDATE localized_strings SET value = 'Échiquier' WHERE localization = 'fr'") }
        #expect(try found(migrated, "ÉCHIQ") == ["Chess.app"] && found(migrated, "checs").isEmpty, "a string updated in place")
        try migrated.write { db in try db.execute(sql: "DELETE FROM bundles") }
        try checkIndex(migrated)
        #expect(try migrated.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bundle_names") } == 0, "no row left behind")
    }
}
