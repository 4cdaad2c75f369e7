import BundleModel
@testable import Catalogue
import Fixtures
import GRDB
import Indexer
import Records
import Scanner
import SystemCalls
import Testing
import TestSupport

/// A first index into an empty catalogue makes its secondary indexes, triggers, Launch Services'
/// lists and `bundle_names` once at its end (`Catalogue.buildingIndexesAfterwards`). What it leaves
/// must be what the plain path (every index and trigger live while the rows are written) leaves:
/// every table, every row, every column, and the schema itself.
@Suite struct FirstIndexTests {
    @Test func theSampleTreeInBulkEqualsThePlainPath() throws {
        try expectBulkEqualsPlain(Paths.join(PackagePaths.root, "Sample"))
    }

    /// The benchmark's generator: macOS and GNUstep applications with localized names, frameworks,
    /// executables with UUIDs, icons, claims and declared types.
    @Test func aGeneratedTreeInBulkEqualsThePlainPath() throws {
        let directory = TemporaryDirectory("first-index-tree")
        let root = directory.appending("tree")
        BenchmarkTree(root: root, bundles: 300).generate()
        try expectBulkEqualsPlain(root)
    }

    @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
    func theCorpusInBulkEqualsThePlainPath() throws {
        try expectBulkEqualsPlain(Corpus.tree!)
    }

    /// A catalogue left by a first index killed before its end (the rows written, the indexes,
    /// triggers and names not made yet) gets them back when it is next opened to write.
    @Test func aCatalogueLeftWithoutItsIndexesGetsThemBackWhenOpened() throws {
        let directory = TemporaryDirectory("first-index-left")
        let root = directory.appending("tree")
        BenchmarkTree(root: root, bundles: 40).generate()
        let plain = try index(root, into: directory.appending("plain.sqlite"), inBulk: false)
        let path = directory.appending("left.sqlite")
        do {
            // What a kill during the scan leaves: the rows written, the indexes and triggers dropped.
            let catalogue = try Catalogue(path: path, mode: .readWrite)
            try catalogue.write { db in
                for index in Catalogue.deferredIndexes { try db.execute(sql: "DROP INDEX \(index.name)") }
                try db.execute(sql: "DROP TRIGGER \(LaunchLists.insertTrigger)")
                for trigger in BundleNames.triggers { try db.execute(sql: "DROP TRIGGER \(trigger.name)") }
            }
            let scanner = TreeScanner(root: try ScanRoot(path: FilePath(root), confinement: .trustedLinksOut), options: ScanOptions(distrustWindow: 0))
            _ = scanner.scan(into: RowsOnly(catalogue: catalogue))
            #expect(try catalogue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bundle_names") } == 0)
        }
        let reopened = try Catalogue(path: path, mode: .readWrite)
        _ = try Indexer(catalogue: reopened, options: ScanOptions(distrustWindow: 0)).index(root: FilePath(root))
        expectSame(try reopened.everyRow(), plain, "a catalogue reopened after an interrupted first index")
    }
}

/// Writes a scan's events and nothing else.
private final class RowsOnly: ScanSink, Sendable {
    let catalogue: Catalogue
    init(catalogue: Catalogue) { self.catalogue = catalogue }
    func receive(_ events: [ScanEvent]) { try! catalogue.apply(events, scannedAt: 0) }
}

private func index(_ root: String, into path: String, inBulk: Bool) throws -> [String: [String]] {
    let catalogue = try Catalogue(path: path, mode: .readWrite)
    var indexer = Indexer(catalogue: catalogue, options: ScanOptions(distrustWindow: 0))
    indexer.buildsIndexesAfterwards = inBulk
    _ = try indexer.index(root: FilePath(root))
    return try catalogue.everyRow()
}

private func expectBulkEqualsPlain(_ root: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let directory = TemporaryDirectory("first-index")
    let bulk = try index(root, into: directory.appending("bulk.sqlite"), inBulk: true)
    let plain = try index(root, into: directory.appending("plain.sqlite"), inBulk: false)
    #expect((bulk["bundles"] ?? []).count > 0, sourceLocation: sourceLocation)
    // A row per name, each bundle at least its file name's; each in the trigram index.
    #expect((bulk["bundle_names"] ?? []).count > (bulk["bundles"] ?? []).count, sourceLocation: sourceLocation)
    #expect((bulk["bundle_name_index"] ?? []).count == (bulk["bundle_names"] ?? []).count, sourceLocation: sourceLocation)
    #expect(!(bulk["bundle_name_index"] ?? []).contains { $0.contains(" size none ") }, sourceLocation: sourceLocation)
    expectSame(bulk, plain, root, sourceLocation: sourceLocation)
}

/// Table by table, the first rows that differ.
func expectSame(_ actual: [String: [String]], _ expected: [String: [String]], _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.keys.sorted() == expected.keys.sorted(), "\(context): tables", sourceLocation: sourceLocation)
    for table in expected.keys.sorted() {
        let mine = actual[table] ?? [], theirs = expected[table] ?? []
        // Compared as bytes: as Strings, NFC and NFD twins are one.
        guard mine.map({ Array($0.utf8) }) != theirs.map({ Array($0.utf8) }) else { continue }
        let onlyMine = Set(mine).subtracting(theirs).sorted().prefix(3), onlyTheirs = Set(theirs).subtracting(mine).sorted().prefix(3)
        Issue.record("\(context): \(table) differs (\(mine.count) rows against \(theirs.count)); only here: \(Array(onlyMine)); only in the plain path's: \(Array(onlyTheirs))",
                     sourceLocation: sourceLocation)
    }
}
