import BundleModel
import Catalogue
import Fixtures
import GRDB
import Indexer
import Scanner
import TestSupport
import SystemCalls

/// A catalogue in a temporary directory, and the index runs made into it.
final class IndexFixture: @unchecked Sendable {
    let directory = TemporaryDirectory("index")
    let tree: TreeWriter
    let catalogue: Catalogue
    var options = ScanOptions(distrustWindow: 0)

    init() throws {
        tree = TreeWriter(root: directory.appending("tree"))
        catalogue = try Catalogue(path: directory.appending("catalogue.sqlite"), mode: .readWrite)
    }

    @discardableResult
    func index(_ root: String? = nil) throws -> IndexSummary {
        try Indexer(catalogue: catalogue, options: options).index(root: FilePath(root ?? tree.root))
    }

    /// The catalogue's contents in a comparable form, from a fresh index of the same tree.
    func freshDump(_ root: String? = nil) throws -> CatalogueDump {
        try CatalogueDump.ofFreshIndex(root ?? tree.root, options: options)
    }

    func dump() throws -> CatalogueDump { try CatalogueDump(catalogue) }

    func paths() throws -> [String] {
        try catalogue.bundles(matching: BundleQuery()).map { relative($0.record.key.string) }
    }

    func relative(_ path: String) -> String { String(path.dropFirst(tree.root.count + 1)) }
}

