import BundleModel
import Catalogue
import Fixtures
import Indexer
import SystemCalls
import Testing
import TestSupport
@testable import View

/// The symbol stores read the catalogue once per directory between two updates: a layout's top
/// level from one query, a directory below it from one range, kept for the directories beneath;
/// only the update stream (`invalidate`) makes them read again.
@Suite struct SymbolStoresTests {
    let directory = TemporaryDirectory("symbol-stores")
    let key = BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 71)))!

    func indexed() throws -> (catalogue: Catalogue, stores: SymbolStores) {
        let tree = TreeWriter(root: directory.appending("tree"))
        tree.machOApp("Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 71)).bytes())
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.db")), mode: .readWrite)
        let root = try Indexer.canonicalRoot(FilePath(tree.root))
        _ = try Indexer(catalogue: catalogue).index(root: root)
        return (catalogue, SymbolStores(source: try ScanRoot(path: root), catalogue: catalogue))
    }

    static func names(_ children: [SymbolStores.Child]) -> [String] {
        children.map { child in
            switch child {
            case let .directory(name, _), let .file(name, _): name
            }
        }
    }

    @Test func listingsAreKeptUntilAnUpdate() throws {
        let (catalogue, stores) = try indexed()
        let top = String(key.prefix(4)).uppercased(), second = String(key.dropFirst(4).prefix(4)).uppercased()
        let native = SymbolPath(layout: .native, components: [])
        #expect(Self.names(stores.children(of: native).children) == [top])
        // The first directory's range is kept for the one beneath it.
        #expect(Self.names(stores.children(of: SymbolPath(layout: .native, components: [top])).children) == [second])
        #expect(Self.names(stores.children(of: SymbolPath(layout: .unified, components: [])).children) == [String(key.prefix(2))])

        TreeWriter(root: directory.appending("tree")).remove("Tool.app")
        _ = try Indexer(catalogue: catalogue).index(root: Indexer.canonicalRoot(FilePath(directory.appending("tree"))))
        #expect(Self.names(stores.children(of: native).children) == [top])
        #expect(Self.names(stores.children(of: SymbolPath(layout: .native, components: [top, second])).children).count == 1)
        stores.invalidate()
        #expect(stores.children(of: native).children.isEmpty)
        #expect(stores.children(of: SymbolPath(layout: .native, components: [top])).children.isEmpty)
        #expect(stores.step(top.lowercased(), in: native) == nil)
    }
}
