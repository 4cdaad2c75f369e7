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
