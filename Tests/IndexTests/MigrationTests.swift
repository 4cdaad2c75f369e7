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
