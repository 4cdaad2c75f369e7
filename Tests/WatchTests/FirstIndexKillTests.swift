import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A first index writes its rows without the secondary indexes, triggers and derived rows, and
/// makes them at its end (`Catalogue.buildingIndexesAfterwards`). `bundlefs index` killed with
/// SIGKILL at any point of that leaves a catalogue that the next start completes: every table,
/// row and index equal to a fresh index of the same tree.
@Suite struct FirstIndexKillTests {
    let temporary = TemporaryDirectory("first-index-kill")

    /// Where the run is killed: the state the catalogue is seen in, the process stopped.
    enum Point: String, CaseIterable {
        case created = "the catalogue made, no bundle written yet"
        case firstRows = "bundles written, the indexes and triggers not made yet"
        case mostRows = "a quarter of the bundles written, the indexes and triggers not made yet"

        func reached(bundles: Int, hasTriggers: Bool, of total: Int) -> Bool {
            switch self {
            case .created: bundles == 0
            case .firstRows: bundles > 0 && !hasTriggers
            case .mostRows: bundles * 4 >= total && !hasTriggers
            }
        }
    }

    /// One tree and one fresh index of it serve every point: each run only reads the tree, and
    /// making them once per point was two thirds of the test's work.
    @Test func aFirstIndexKilledAtEachPointIsCompletedByTheNextStart() throws {
        let root = temporary.appending("tree")
        let bundles = 800
        BenchmarkTree(root: root, bundles: bundles).generate()
        let oracle = temporary.appending("oracle.sqlite")
        #expect(try Subprocess.bundlefs(["index", root], catalogue: oracle).status == 0)
        // Whether a directory was trusted depends on when it was listed, not on the kill.
        let fresh = try Catalogue(path: oracle, mode: .readOnly).everyRow(leavingOut: ["directories.trusted"])
        for point in Point.allCases {
            try killAndComplete(at: point, indexing: root, of: bundles, expecting: fresh)
        }
    }

    func killAndComplete(at point: Point, indexing root: String, of bundles: Int, expecting fresh: [String: [String]]) throws {
        let catalogue = temporary.appending("killed-\(point).sqlite")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.bundlefs)
        // One walking thread: the run lasts long enough to be seen in each state.
        process.arguments = ["index", "--threads", "1", root]
        process.environment = ProcessInfo.processInfo.environment.merging(["BUNDLEFS_CATALOGUE": catalogue]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = false
        // Stopped while the state is read, so the state read is the state it is killed in.
        try poll(timeout: 600, "the index to reach \(point.rawValue)") {
            kill(process.processIdentifier, SIGSTOP)
            defer { if !seen { kill(process.processIdentifier, SIGCONT) } }
            guard process.isRunning else { throw WatcherFailure("the index ended before \(point.rawValue)") }
            guard FileManager.default.fileExists(atPath: catalogue),
                  let state = try? Subprocess.run("/usr/bin/sqlite3", [catalogue,
                      "SELECT count(*), (SELECT count(*) FROM sqlite_master WHERE name = 'bundle_names_insert') FROM bundles"]),
                  state.status == 0
            else { return false }
            let numbers = state.standardOutput.split(whereSeparator: { $0 == "|" || $0 == "\n" }).compactMap { Int($0) }
            guard numbers.count == 2 else { return false }
            seen = point.reached(bundles: numbers[0], hasTriggers: numbers[1] == 1, of: bundles)
            if seen { kill(process.processIdentifier, SIGKILL) }
            return seen
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let next = try Subprocess.bundlefs(["index", root], catalogue: catalogue)
        #expect(next.status == 0, "\(next)")
        #expect(try Subprocess.run("/usr/bin/sqlite3", [catalogue, "PRAGMA integrity_check"]).standardOutput == "ok\n")
        let completed = try Catalogue(path: catalogue, mode: .readOnly).everyRow(leavingOut: ["directories.trusted"])
        #expect(completed.keys.sorted() == fresh.keys.sorted())
        for table in fresh.keys.sorted() where completed[table].map({ $0.map { Array($0.utf8) } }) != fresh[table]?.map({ Array($0.utf8) }) {
            let mine = completed[table] ?? [], theirs = fresh[table] ?? []
            Issue.record("killed at \(point.rawValue): \(table) differs (\(mine.count) rows against \(theirs.count)); only after the kill: \(Array(Set(mine).subtracting(theirs).sorted().prefix(3))); only in a fresh index: \(Array(Set(theirs).subtracting(mine).sorted().prefix(3)))")
        }
    }
}
