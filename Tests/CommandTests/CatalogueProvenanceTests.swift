import Fixtures
import Foundation
import Testing
import TestSupport

/// What is at the catalogue's path is judged before it is opened (`CatalogueFile.vet`): a FIFO
/// never hangs either binary, a file that is not SQLite or is another program's database is
/// refused with the reason and left byte for byte as it was, and only a file that is bundlefs's
/// own is called derived data that deleting loses nothing of.
@Suite struct CatalogueProvenanceTests {
    let temporary = TemporaryDirectory("catalogue-provenance")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }

    /// `query` (the query-only binary) and `index` (the complete one) on `catalogue`, within 20 s each.
    func bothBinaries(_ catalogue: String) throws -> [ProcessResult] {
        try [["query", "com.example.*"], ["index", tree.root]].map { arguments in
            try Subprocess.run(Subprocess.bundlefs, arguments + ["--catalogue", catalogue], environment: ["LANG": "C"], timeout: 20)
        }
    }

    func sqlite(_ path: String, _ sql: String) throws {
        let result = try Subprocess.run("/usr/bin/sqlite3", [path, sql])
        try #require(result.status == 0, "\(result)")
    }

    @Test func whatIsNotBundlefssIsRefusedAndLeftAlone() throws {
        tree.macApp("A.app", identifier: "com.example.a")
        let fifo = temporary.appending("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let notes = temporary.appending("notes.txt")
        try #require(FileManager.default.createFile(atPath: notes, contents: Data(String(repeating: "a note\n", count: 40).utf8)))
        let empty = temporary.appending("empty.sqlite")
        try #require(FileManager.default.createFile(atPath: empty, contents: Data()))
        let marked = temporary.appending("other-app.sqlite")
        try sqlite(marked, "PRAGMA application_id = 1234; CREATE TABLE notes (text); INSERT INTO notes VALUES ('mine')")
        let unmarked = temporary.appending("unmarked.sqlite")
        try sqlite(unmarked, "CREATE TABLE bundles (path); INSERT INTO bundles VALUES ('/not/yours')")
        let migrated = temporary.appending("grdb-app.sqlite")
        try sqlite(migrated, "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('createUsers')")
        let cases: [(path: String, says: String)] = [
            (fifo, "is a FIFO, not a catalogue file"), (temporary.path, "is a directory, not a catalogue file"),
            (notes, "(it is not a SQLite database)"), (empty, "(it is empty)"), (marked, "another program's SQLite database (application_id 0x4D2)"),
            (unmarked, "a SQLite database that bundlefs did not make"), (migrated, "a SQLite database that bundlefs did not make"),
        ]
        for (path, says) in cases {
            let before = try? Data(contentsOf: URL(fileURLWithPath: path))
            for result in try bothBinaries(path) {
                #expect(result.status == 1, "\(path): \(result)")
                #expect(result.standardError.contains(says), "\(path): \(result)")
                #expect(!result.standardError.contains("delet") && !result.standardError.contains("running bundlefs"), "\(path): \(result)")
            }
            #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == before, "\(path) changed")
            for suffix in ["-wal", "-journal", ".lock"] {
                #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(path + suffix) made")
            }
        }
    }

    /// Ours is told apart by its mark, also one of an earlier bundlefs that lacks it (its
    /// migrations are ours); a damaged one of ours is the one that deleting loses nothing of.
    @Test func oursIsMarkedAndADamagedOneIsDerivedData() throws {
        tree.macApp("A.app", identifier: "com.example.a")
        let catalogue = temporary.appending("catalogue.sqlite")
        #expect(try bothBinaries(catalogue).last?.status == 0)
        let mark = try Subprocess.run("/usr/bin/sqlite3", [catalogue, "PRAGMA application_id"])
        #expect(mark.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == String(0x424E_4653), "\(mark)")
        // As an earlier bundlefs left it: unmarked. Read and written as ours, and marked again.
        try sqlite(catalogue, "PRAGMA application_id = 0")
        let results = try bothBinaries(catalogue)
        #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
        #expect(results[0].standardOutput.contains("com.example.a"), "\(results)")
        let remarked = try Subprocess.run("/usr/bin/sqlite3", [catalogue, "PRAGMA application_id"])
        #expect(remarked.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == String(0x424E_4653), "\(remarked)")
        // Its schema's page damaged, its header intact.
        let handle = try #require(FileHandle(forUpdatingAtPath: catalogue))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 3_996))
        try handle.close()
        for result in try bothBinaries(catalogue) {
            #expect(result.status == 1, "\(result)")
            #expect(result.standardError.contains("deleting it loses nothing"), "\(result)")
        }
    }
}
