import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A catalogue another user may read but not write (a shared cache), and one they may not read.
@Suite struct SharedCatalogueTests {
    let temporary = TemporaryDirectory("shared-catalogue")

    @Test func anotherUserQueriesAReadOnlyCatalogueAndIsToldTheTruthWhenTheyCannot() throws {
        chmod(temporary.path, 0o755)
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.macApp("Applications/Chess.app", identifier: "com.example.chess")
        let catalogue = temporary.appending("cache/catalogue.sqlite")
        let index = try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue)
        #expect(index.status == 0, "\(index)")
        #expect(try FileStatus.of(catalogue).permissions == 0o600, "created for its owner only")
        // The clone may live where the other user cannot reach: they run a copy (of both binaries:
        // `bundlefs` hands `status` to `bundlefs-full` beside it).
        let binary = temporary.appending("bundlefs")
        try FileManager.default.copyItem(atPath: Subprocess.bundlefs, toPath: binary)
        try FileManager.default.copyItem(atPath: Paths.join(Subprocess.productsDirectory, "bundlefs-full"), toPath: temporary.appending("bundlefs-full"))

        let user = try SystemUser()
        func query() throws -> ProcessResult {
            try user.run(binary, ["query", "com.example.chess", "--json", "--catalogue", catalogue], environment: ["HOME": "/nonexistent"])
        }
        // Shared on purpose: readable, not writable, in a directory they cannot write.
        chmod(temporary.appending("cache"), 0o755)
        chmod(catalogue, 0o644)
        let shared = try query()
        #expect(shared.status == 0, "\(shared)")
        #expect(shared.standardOutput.contains(tree.path("Applications/Chess.app")), "\(shared)")
        #expect(try FileStatus.of(catalogue).permissions == 0o644, "a reader changes nothing")
        let status = try user.run(binary, ["status", "--catalogue", catalogue])
        #expect(status.standardError.contains("no watcher") || status.standardOutput.contains("no watcher"), "\(status)")

        // Not shared: a true message, and no advice to delete what they cannot read.
        chmod(catalogue, 0o600)
        let denied = try query()
        #expect(denied.status != 0)
        #expect(denied.standardError.contains("cannot read the catalogue at \(catalogue): permission denied"), "\(denied)")
        #expect(!denied.standardError.contains("delet") && !denied.standardError.contains("cannot create"), "\(denied)")
        #expect(try FileStatus.of(catalogue).size > 0, "nothing lost")
    }
}
