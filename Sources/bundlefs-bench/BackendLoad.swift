import Catalogue
import Fixtures
import Foundation
import Synchronization
import SystemCalls
import TestSupport

/// What `--backends` does to a watched tree and beside it: a storm of changes that leaves the tree
/// as it found it once `undo` runs (the million-entry tree is shared with `make bench`'s memory
/// section), and an unrelated writer elsewhere on the same filesystem.
struct BackendStorm {
    let writer: TreeWriter
    let bundles: Int
    let tag: String
    private(set) var renamed: [(from: String, to: String)] = []
    private var created: [String] = []
    private(set) var operations = 0

    init(root: String, bundles: Int, tag: String) {
        writer = TreeWriter(root: root)
        self.bundles = bundles
        self.tag = tag
    }

    var marker: String { "StormMarker-\(tag).app" }
    private var groups: Int { max(1, bundles / 100) }

    /// An application of the benchmark tree (`App<n>.app`, indexes ending in 0, 1, 2 or 4 to 6).
    private func app(_ seed: Int) -> String {
        let index = (seed &* 7919) % bundles / 10 * 10 + [0, 1, 2, 4, 5, 6][seed % 6]
        return "Group\(index / 100)/App\(index).app"
    }

    /// 20,000 changes spread over the whole tree: files created in bundles and some deleted again,
    /// Info.plists replaced atomically (by the same bytes), bundles renamed, folders made and
    /// filled; then a marker application.
    mutating func write() {
        for index in 0..<8_000 {
            let file = "\(app(index))/Contents/Resources/storm-\(tag)-\(index).txt"
            writer.text(file, "s")
            created.append(file)
            operations += 1
        }
        for index in stride(from: 0, to: 8_000, by: 8) {
            writer.remove(created[index])
            operations += 1
        }
        for index in 0..<4_000 {
            let info = "\(app(index &* 31 + 5))/Contents/Info.plist"
            guard let bytes = FileManager.default.contents(atPath: writer.path(info)) else { continue }
            writer.file(info + ".new", Array(bytes))
            writer.rename(info + ".new", info)
            operations += 1
        }
        for index in 0..<1_000 {
            let folder = "Group\(index % groups)/StormFolder-\(tag)-\(index)"
            writer.directory(folder)
            created.append(folder)
            for file in 0..<4 { writer.text("\(folder)/extra\(file).txt", "e") }
            operations += 5
        }
        while operations < 19_000 {
            writer.text("Group\(operations % groups)/StormFolder-\(tag)-\(operations % 1_000)/more\(operations).txt", "m")
            operations += 1
        }
        // Renames last: the files above are undone at the paths they were written to.
        var seen = Set<String>()
        for index in 0..<1_000 {
            let from = app(index &* 53 + 3)
            guard seen.insert(from).inserted, FileManager.default.fileExists(atPath: writer.path(from)) else { continue }
            let to = "\(from.split(separator: "/")[0])/Renamed-\(tag)-\(index).app"
            writer.rename(from, to)
            renamed.append((from, to))
            operations += 1
        }
        writer.macApp(marker, identifier: "com.example.storm.\(tag)")
    }

    /// Converged: the marker and every renamed bundle are catalogued where they now are, and the
    /// watcher has nothing pending.
    func converged(_ catalogue: Catalogue, status: WatchStatus?) -> Bool {
        guard let status, status.pending == 0, (try? catalogue.bundle(atPath: writer.path(marker))) != nil else { return false }
        return renamed.allSatisfy { (try? catalogue.bundle(atPath: writer.path($0.to))) != nil }
    }

    /// Puts the tree back as it was.
    func undo() {
        for (from, to) in renamed.reversed() { writer.rename(to, from) }
        for path in created where FileManager.default.fileExists(atPath: writer.path(path)) { removeTree(writer.path(path)) }
        removeTree(writer.path(marker))
    }
}

/// Creates and removes files in `directory` at `rate` a second, on `threads` threads, for
/// `seconds`: open(O_CREAT), close, unlink, paced per millisecond. Answers the files written.
func unrelatedWriter(directory: String, rate: Int, threads: Int, seconds: Double) -> Int {
    let written = Mutex(0)
    let share = Double(rate) / Double(threads)
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        let own = Paths.join(directory, "w\(thread)")
        try? FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        let names = (0..<1_000).map { Paths.join(own, "f\($0)") }
        let began = Timing.now()
        var count = 0
        while true {
            let elapsed = Timing.now() - began
            if elapsed >= seconds { break }
            let due = Int(elapsed * share)
            while count < due {
                let name = names[count % names.count]
                let descriptor = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                if descriptor >= 0 { close(descriptor) }
                unlink(name)
                count += 1
            }
            usleep(500)
        }
        written.withLock { $0 += count }
    }
    return written.withLock { $0 }
}

/// The load average now (1, 5 and 15 minutes), for every figure: the machine is shared.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
}
