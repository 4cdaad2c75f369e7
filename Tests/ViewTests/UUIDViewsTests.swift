import BundleModel
import Catalogue
import Fixtures
import Indexer
import SystemCalls
import Testing
import TestSupport
@testable import View

/// by-uuid answers from the catalogue once per UUID between two updates: a lookup, its attributes
/// and a read agree, and only the update stream (`invalidate`) makes it read the catalogue again.
@Suite struct UUIDViewsTests {
    let directory = TemporaryDirectory("uuid-views")
    let key = BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 51)))!

    func indexed() throws -> (catalogue: Catalogue, views: UUIDViews) {
        let tree = TreeWriter(root: directory.appending("tree"))
        tree.machOApp("Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 51)).bytes())
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.db")), mode: .readWrite)
        let root = try Indexer.canonicalRoot(FilePath(tree.root))
        _ = try Indexer(catalogue: catalogue).index(root: root)
        return (catalogue, UUIDViews(source: try ScanRoot(path: root), catalogue: catalogue))
    }

    func removeToolAndIndex(_ catalogue: Catalogue) throws {
        TreeWriter(root: directory.appending("tree")).remove("Tool.app")
        _ = try Indexer(catalogue: catalogue).index(root: Indexer.canonicalRoot(FilePath(directory.appending("tree"))))
        #expect(try catalogue.symbolMatches(uuidKey: key, under: .root).isEmpty)
    }

    @Test func aUUIDAskedForIsKeptUntilAnUpdate() throws {
        let (catalogue, views) = try indexed()
        #expect(views.matches(key).count == 1)
        try removeToolAndIndex(catalogue)
        // Between updates, the answer a lookup had is the answer its attributes and reads get.
        #expect(views.matches(key).count == 1 && views.accessSources(key).count == 1)
        views.invalidate()
        #expect(views.matches(key).isEmpty && views.accessSources(key).isEmpty)
    }

    @Test func aListingAnswersEveryUUIDUntilAnUpdate() throws {
        let (catalogue, views) = try indexed()
        #expect(views.allMatches().keys.sorted() == [key])
        try removeToolAndIndex(catalogue)
        #expect(views.matches(key).count == 1 && views.allMatches().keys.sorted() == [key])
        // An unknown UUID is answered from the listing too, without a query.
        #expect(views.matches(String(repeating: "0", count: 32)).isEmpty)
        views.invalidate()
        #expect(views.allMatches().isEmpty && views.matches(key).isEmpty)
    }

    // An update that touched one UUID: the next listing reads that UUID alone, not every UUID
    // again, and answers what a listing made afresh answers.
    @Test func aListingAfterAnUpdateReadsOnlyTheUUIDsItTouched() throws {
        let tree = TreeWriter(root: directory.appending("tree"))
        tree.machOApp("Other.app", identifier: "org.example.other", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 52)).bytes())
        let (catalogue, _) = try indexed()
        let root = try ScanRoot(path: Indexer.canonicalRoot(FilePath(tree.root)))
        let requests = RequestCounts()
        let views = UUIDViews(source: root, catalogue: catalogue, requests: requests)
        let other = BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 52)))!
        #expect(views.allMatches().keys.sorted() == [key, other].sorted())

        let rebuilt = BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 53)))!
        tree.file("Tool.app/Contents/MacOS/Tool", MachOImage.arm64(uuid: MachOImage.uuid(seed: 53)).bytes(), mode: 0o755)
        _ = try Indexer(catalogue: catalogue).index(root: root.path)
        views.invalidate(keys: [key, rebuilt])
        // Asked alone, a touched UUID is read again, an untouched one is not.
        #expect(views.matches(key).isEmpty && views.matches(other).count == 1)
        let before = requests.summary
        let listed = views.allMatches()
        #expect(listed.keys.sorted() == [rebuilt, other].sorted())
        #expect(listed.mapValues { $0.map(\.bundle) } == UUIDViews(source: root, catalogue: catalogue).allMatches().mapValues { $0.map(\.bundle) })
        #expect(Self.count("uuidListingQuery", requests.summary) == Self.count("uuidListingQuery", before))
        #expect(Self.count("uuidQuery", requests.summary) - Self.count("uuidQuery", before) == 2)
        #expect(views.allMatches().keys.sorted() == listed.keys.sorted())
        #expect(Self.count("uuidQuery", requests.summary) - Self.count("uuidQuery", before) == 2, "a second listing read again")
    }

    static func count(_ kind: String, _ summary: String) -> Int {
        Int(summary.split(separator: " ").first { $0.hasPrefix(kind + "=") }!.dropFirst(kind.count + 1))!
    }
}
