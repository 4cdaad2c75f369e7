@testable import Catalogue
import Fixtures
import Foundation
import GRDB
import Indexer
import Synchronization
import SystemCalls
import Testing
import TestSupport

/// SPEC.md "Faults": a reader that opens a catalogue while another process creates or migrates it
/// waits for it or says so; it is never told the file is unusable, and never told to delete a file
/// a live process holds.
@Suite struct CatalogueCreationTests {
    let temporary = TemporaryDirectory("catalogue-creation")
    var path: FilePath { FilePath(temporary.appending("catalogue.sqlite")) }

    /// A catalogue with one bundle, made elsewhere and moved over `path` when the "creator" is done.
    func completeCatalogue() throws -> FilePath {
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.macApp("Chess.app", identifier: "com.example.chess")
        let made = FilePath(temporary.appending("made.sqlite"))
        do {
            let catalogue = try Catalogue(path: made, mode: .readWrite)
            _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        }
        // Closed: its WAL is checkpointed into the file and removed, so the file alone moves.
        try #require(!FileManager.default.fileExists(atPath: made.string + "-wal"))
        return made
    }

    @Test func aReaderWaitsForTheProcessCreatingTheCatalogue() throws {
        let made = try completeCatalogue()
        // What a creator holds: the lock, and (before the catalogue was made whole) an empty file.
        var lock: FileLock? = try FileLock(path: Catalogue.lockPath(catalogue: path))
        try #require(lock != nil)
        _ = FileManager.default.createFile(atPath: path.string, contents: nil)
        let result = Mutex<Result<Int, any Error>?>(nil)
        let reader = try Threads.start {
            let opened = Result { try Catalogue(path: path, mode: .readOnly).bundles(matching: BundleQuery()).count }
            result.withLock { $0 = opened }
        }
        // A slow creator: the reader has met the empty file and waited for it, more than once,
        // by the time the catalogue is whole (counted by the reader, not assumed after a while).
        try poll(timeout: 30, "the reader to wait for the creator (result: \(String(describing: result.withLock { $0 })))") {
            Catalogue.readerWaits(at: path) >= 3 || result.withLock { $0 } != nil
        }
        #expect(result.withLock { $0 } == nil, "the reader gave up while the catalogue was being made")
        #expect(rename(made.string, path.string) == 0)
        lock = nil
        Threads.join(reader)
        #expect(try result.withLock { $0 }?.get() == 1)
        #expect(Catalogue.readerWaits(at: path) >= 3)
        _ = lock
    }

    @Test func aReaderIsToldWhenTheCreatorDoesNotFinish() throws {
        let lock = try #require(try FileLock(path: Catalogue.lockPath(catalogue: path)))
        _ = FileManager.default.createFile(atPath: path.string, contents: nil)
        do {
            _ = try Catalogue(path: path, mode: .readOnly, creationWait: 0.2)
            Issue.record("an empty file opened as a catalogue")
        } catch {
            #expect("\(error)".contains("being created or brought up to date by a running bundlefs"), "\(error)")
            #expect(!"\(error)".contains("delet"), "\(error)")
        }
        withExtendedLifetime(lock) {}
    }

    @Test func aDamagedCatalogueAnotherProcessHoldsIsNotToBeDeleted() throws {
        // A catalogue of ours (its header and mark intact) whose schema's page is damaged.
        try FileManager.default.moveItem(atPath: try completeCatalogue().string, toPath: path.string)
        let handle = try #require(FileHandle(forUpdatingAtPath: path.string))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 3_996))
        try handle.close()
        var lock = try FileLock(path: Catalogue.lockPath(catalogue: path))
        try #require(lock != nil)
        do {
            _ = try Catalogue(path: path, mode: .readOnly, creationWait: 0.1)
            Issue.record("a damaged catalogue opened")
        } catch {
            #expect(!"\(error)".contains("delet"), "\(error)")
        }
        lock = nil
        _ = lock
        // Nobody holds it: deleting it is the advice, as it loses nothing; to a writer too.
        for mode in [Catalogue.Mode.readOnly, .readWrite] {
            do {
                _ = try Catalogue(path: path, mode: mode, creationWait: 0.1)
                Issue.record("a damaged catalogue opened")
            } catch {
                #expect("\(error)".contains("deleting it loses nothing"), "\(error)")
            }
        }
    }

    @Test func anOlderCatalogueNobodyMigratesSaysSo() throws {
        let old = try DatabaseQueue(path: path.string)
        try Schema.migrator.migrate(old, upTo: "v4")
        try old.close()
        do {
            _ = try Catalogue(path: path, mode: .readOnly, creationWait: 0.1)
            Issue.record("an older catalogue opened to read")
        } catch {
            #expect("\(error)".contains("older bundlefs"), "\(error)")
        }
    }

    @Test func creationLeavesNoFileBesideTheCatalogue() throws {
        _ = try Catalogue(path: path, mode: .readWrite)
        let names = try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted()
        #expect(names.allSatisfy { !$0.contains(".new-") }, "\(names)")
        #expect(try FileStatus.of(path).permissions == 0o600)
    }
}
