import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import SystemCalls
import Testing
import TestSupport

/// The catalogue's outbox: what a publisher reads of it.
struct OutboxTests {
    /// Changes to NFC and NFD twins queued in one batch are two paths, both sent.
    @Test func outboxBatchesKeepTwinsApart() throws {
        let temporary = TemporaryDirectory("outbox-twins")
        let tree = TreeWriter(root: temporary.appending("tree"))
        let catalogue = try Catalogue(path: FilePath(temporary.appending("catalogue.sqlite")), mode: .readWrite)
        try catalogue.beginPublishing(PublicationStatus(destination: "test", host: "twins", pid: 1, state: .starting, updatedAt: 0))
        tree.macApp("Re\u{301}sume\u{301}.app", identifier: "com.example.nfd")
        tree.macApp("R\u{E9}sum\u{E9}.app", identifier: "com.example.nfc")
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        let batch = try #require(try catalogue.outboxBatch(limit: 100))
        #expect(Set(batch.present.compactMap(\.identifier)) == ["com.example.nfc", "com.example.nfd"])
    }
}
