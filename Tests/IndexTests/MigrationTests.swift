@testable import Catalogue
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
        let byPath = Dictionary(uniqueKeysWithValues: whole.map { ($0.record.path, $0.record) })
        for bundle in chunked { #expect(bundle.record == byPath[bundle.record.path], "\(bundle.record.path)") }
        #expect(chunked.contains { !$0.record.errors.isEmpty }, "a problem row came with its bundle")
    }
}
