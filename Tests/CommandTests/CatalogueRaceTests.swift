import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A script that queries right after starting `watch` (SPEC.md "Faults"): while the watcher creates
/// the catalogue, a query waits for it or says there is none yet; it is never told the file is
/// unusable or to delete it (11 of 20 starts were, when the catalogue was made in place).
@Suite struct CatalogueRaceTests {
    let temporary = TemporaryDirectory("catalogue-race")

    @Test func queriesStartedWithTheWatcherAreNeverToldTheCatalogueIsUnusable() throws {
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.macApp("Chess.app", identifier: "com.example.chess")
        var answered = 0
        for round in 0..<20 {
            let catalogue = temporary.appending("round\(round)/catalogue.sqlite")
            let watcher = try WatcherProcess(roots: [tree.root], catalogue: catalogue, logFile: temporary.appending("watch\(round).log"))
            defer { _ = try? watcher.stop() }
            // Queries one after another from the watcher's start until one is answered: a lookup
            // takes a few milliseconds, so they meet the catalogue missing, being made, just made.
            let deadline = Clocks.monotonicSeconds() + 20
            while Clocks.monotonicSeconds() < deadline {
                let query = try Subprocess.bundlefs(["query"], catalogue: catalogue)
                #expect(!query.standardError.contains("not a usable") && !query.standardError.contains("delet"), "round \(round): \(query)")
                #expect([0, 1].contains(query.status), "round \(round): \(query)")
                if query.status == 0 || query.standardError.contains("no bundle matches") {
                    answered += 1
                    break
                }
            }
        }
        // Every start ends with the catalogue answering.
        #expect(answered == 20, "\(answered) of 20 watcher starts ended with an answer")
    }
}
