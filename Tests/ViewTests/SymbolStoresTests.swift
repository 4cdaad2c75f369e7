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
            case let .directory(name, _), let .file(name, _, _, _): name
            }
        }
    }

    @Test func listingsAreKeptUntilAnUpdate() throws {
        let (catalogue, stores) = try indexed()
        let top = String(key.prefix(4)).uppercased(), second = String(key.dropFirst(4).prefix(4)).uppercased()
        let native = SymbolPath(layout: .native, components: [])
        #expect(Self.names(stores.children(of: native)) == [top])
        // The first directory's range is kept for the one beneath it.
        #expect(Self.names(stores.children(of: SymbolPath(layout: .native, components: [top]))) == [second])
        #expect(Self.names(stores.children(of: SymbolPath(layout: .unified, components: []))) == [String(key.prefix(2))])

        TreeWriter(root: directory.appending("tree")).remove("Tool.app")
        _ = try Indexer(catalogue: catalogue).index(root: Indexer.canonicalRoot(FilePath(directory.appending("tree"))))
        #expect(Self.names(stores.children(of: native)) == [top])
        #expect(Self.names(stores.children(of: SymbolPath(layout: .native, components: [top, second]))).count == 1)
        stores.invalidate()
        #expect(stores.children(of: native).isEmpty)
        #expect(stores.children(of: SymbolPath(layout: .native, components: [top])).isEmpty)
        #expect(stores.step(top.lowercased(), in: native) == nil)
    }

    // An update that touched one UUID mends what was kept: the top level and that UUID's range
    // are read again (one range each), every other directory answers from what it had, and the
    // answers are those of stores made afresh.
    @Test func anUpdateReadsAgainOnlyTheGroupsOfTheUUIDsItTouched() throws {
        let tree = TreeWriter(root: directory.appending("tree"))
        let seeds = [72, 73, 74, 75, 76, 77]
        for seed in seeds {
            tree.machOApp("Tool\(seed).app", identifier: "org.example.tool\(seed)", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: seed)).bytes())
        }
        let requests = RequestCounts()
        let (catalogue, _) = try indexed()
        let root = try ScanRoot(path: Indexer.canonicalRoot(FilePath(tree.root)))
        let stores = SymbolStores(source: root, catalogue: catalogue, requests: requests)
        let keys = ([71] + seeds).map { BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: $0)))! }
        try #require(Set(keys.map { $0.prefix(2) }).count == keys.count, "each UUID in a group of its own")
        func walk(_ path: SymbolPath) -> [String] { Self.walk(stores, path) }
        func queries() -> Int { UUIDViewsTests.count("symbolQuery", requests.summary) }
        for layout in SymbolLayout.allCases { _ = walk(SymbolPath(layout: layout, components: [])) }

        let changed = BinarySlice.uuidKey(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 90)))!
        try #require(!keys.contains { $0.prefix(2) == changed.prefix(2) })
        tree.file("Tool.app/Contents/MacOS/Tool", MachOImage.arm64(uuid: MachOImage.uuid(seed: 90)).bytes(), mode: 0o755)
        _ = try Indexer(catalogue: catalogue).index(root: root.path)
        stores.invalidate(keys: [key, changed])

        let before = queries()
        let unrelated = SymbolPath(layout: .unified, components: [String(keys[1].prefix(2))])
        #expect(walk(unrelated) == walk(unrelated))
        #expect(queries() == before, "a directory no update touched was read again")
        let fresh = SymbolStores(source: root, catalogue: catalogue)
        for layout in SymbolLayout.allCases {
            let path = SymbolPath(layout: layout, components: [])
            let walked = walk(path)
            #expect(walked == Self.walk(fresh, path))
            #expect(walked.contains { $0.lowercased().hasPrefix(String(changed.prefix(2))) })
            #expect(!walked.contains { $0.lowercased().hasPrefix(String(key.prefix(2))) })
        }
        // The two groups touched, each one range; nothing else.
        #expect(queries() - before == 2)
    }

    /// Every path below `path`, directories and files, as a walk of the listings finds them.
    static func walk(_ stores: SymbolStores, _ path: SymbolPath) -> [String] {
        stores.children(of: path).flatMap { child -> [String] in
            switch child {
            case let .directory(name, below): [name] + walk(stores, below).map { name + "/" + $0 }
            case let .file(name, _, _, _): [name]
            }
        }
    }
}
