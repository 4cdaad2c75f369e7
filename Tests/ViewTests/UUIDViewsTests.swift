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
}
