@testable import Catalogue
import BundleModel
import Fixtures
import Foundation
import GRDB
import SystemCalls
import Testing
import TestSupport

/// `CatalogueLookup` (issue 30: `query` and `symbols` on SQLite's C API, without GRDB) answers
/// what `Catalogue` answers, record for record, and refuses the files `Catalogue` refuses, in
/// the same words.
@Suite struct CatalogueLookupTests {
    @Test func itAnswersWhatTheCatalogueAnswers() throws {
        let fixture = try IndexFixture()
        SampleTree.write(to: fixture.tree.path("Sample"))
        fixture.tree.text("Archives/Broken.ipa", "not a zip archive")
        fixture.tree.macApp("Apps/Broken.app", identifier: "com.example.broken", localizedStrings: ["de": ["CFBundleDisplayName": "Kaputt\u{0}Nul"]])
        fixture.tree.text("Apps/Broken.app/Contents/Resources/fr.lproj/InfoPlist.strings", "\"CFBundleName\" = ")
        try fixture.index()
        let lookup = try CatalogueLookup(path: FilePath(fixture.directory.appending("catalogue.sqlite")))

        let all = try fixture.catalogue.bundles(matching: BundleQuery())
        try #require(all.count > 20)
        let keys = Set(all.flatMap(\.record.binaries).compactMap(\.uuidKey))
        try #require(!keys.isEmpty)
        var queries = [BundleQuery(), BundleQuery(identifier: "org.example.Chess"), BundleQuery(identifier: "ORG.EXAMPLE.*"), BundleQuery(kind: "application"),
                       BundleQuery(under: FilePath(fixture.tree.path("Sample/Applications"))), BundleQuery(arch: "x86_64"), BundleQuery(inArchives: true),
                       BundleQuery(inArchives: false), BundleQuery(identifier: "com.example.broken"), BundleQuery(identifier: "nothing.here")]
        queries += keys.map { BundleQuery(uuidKey: $0) }
        var runsOn = BundleQuery()
        runsOn.runsOn = RunTarget(parsing: "macos/x86_64")
        queries.append(runsOn)
        for query in queries {
            let expected = try fixture.catalogue.bundles(matching: query)
            let answered = try lookup.bundles(matching: query)
            #expect(answered.map(\.id) == expected.map(\.id), "\(query)")
            for (one, other) in zip(answered, expected) { #expect(one.record == other.record, "\(one.record.key)") }
        }
        let broken = try #require(try lookup.bundles(matching: BundleQuery(identifier: "com.example.broken")).first)
        #expect(broken.record.infoPlistStrings.values.contains { $0["CFBundleDisplayName"] == "Kaputt\u{0}Nul" }, "\(broken.record.infoPlistStrings)")
        #expect(!broken.record.errors.isEmpty || !broken.record.warnings.isEmpty)

        let archives = Set(all.compactMap(\.record.archive) + [FilePath(fixture.tree.path("Archives/Broken.ipa"))])
        #expect(try lookup.archiveErrors(of: archives) == fixture.catalogue.archiveErrors(of: archives))
        #expect(try lookup.archiveErrors(of: archives).isEmpty == false)
        for key in keys {
            #expect(try "\(lookup.symbolMatches(uuidKey: key))" == "\(fixture.catalogue.symbolMatches(uuidKey: key))", "\(key)")
        }
        #expect(try lookup.symbolMatches(uuidKey: "00000000000000000000000000000000").isEmpty)
    }

    /// The lookup's list of schema versions is the migrator's.
    @Test func itKnowsTheMigratorsVersions() {
        #expect(CatalogueFile.schemaVersions == Schema.migrator.migrations)
    }

    /// Missing, not SQLite, SQLite but not a catalogue, a newer and an older catalogue.
    @Test func itRefusesWhatTheCatalogueRefuses() throws {
        let temporary = TemporaryDirectory("lookup-refusals")
        func refusals(_ path: String) -> (String, String) {
            let lookup = Result { try CatalogueLookup(path: FilePath(path), creationWait: 0) }
            let catalogue = Result { try Catalogue(path: FilePath(path), mode: .readOnly, creationWait: 0) }
            return ((lookup.failure as? CatalogueError).map(\.description) ?? "opened", (catalogue.failure as? CatalogueError).map(\.description) ?? "opened")
        }
        let missing = refusals(temporary.appending("missing.sqlite"))
        #expect(missing.0 == missing.1 && missing.0.contains("no catalogue"), "\(missing)")

        let garbage = temporary.appending("garbage.sqlite")
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data(repeating: UInt8(ascii: "x"), count: 8_192)))
        let notSQLite = refusals(garbage)
        #expect(notSQLite.0 == notSQLite.1 && notSQLite.0.contains("it is not a SQLite database"), "\(notSQLite)")

        let empty = temporary.appending("empty.sqlite")
        try DatabaseQueue(path: empty).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let other = refusals(empty)
        #expect(other.0 == other.1 && other.0.contains("a SQLite database that bundlefs did not make"), "\(other)")

        let newer = temporary.appending("newer.sqlite")
        _ = try Catalogue(path: FilePath(newer), mode: .readWrite)
        try DatabaseQueue(path: newer).write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v999')") }
        let fromTheFuture = refusals(newer)
        #expect(fromTheFuture.0 == fromTheFuture.1 && fromTheFuture.0.contains("newer bundlefs"), "\(fromTheFuture)")
        // One line naming both versions: the file's and the newest this one reads.
        #expect(fromTheFuture.0.contains("catalogue schema v999; this bundlefs reads up to \(CatalogueFile.schemaVersions.last!)"), "\(fromTheFuture)")
        #expect(!fromTheFuture.0.contains("\n"))

        let older = temporary.appending("older.sqlite")
        _ = try Catalogue(path: FilePath(older), mode: .readWrite)
        try DatabaseQueue(path: older).write { db in try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [CatalogueFile.schemaVersions.last!]) }
        let fromThePast = refusals(older)
        #expect(fromThePast.0 == fromThePast.1 && fromThePast.0.contains("older bundlefs"), "\(fromThePast)")

        let whole = temporary.appending("whole.sqlite")
        _ = try Catalogue(path: FilePath(whole), mode: .readWrite)
        #expect(refusals(whole) == ("opened", "opened"))
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
