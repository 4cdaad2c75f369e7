import BundleModel
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// Issue 28's figures for `serve-symbols`: a 100 MB DWARF file fetched through it against the same
/// file from a static file server on the same machine (Python's `http.server`, which serves with
/// `sendfile` as we do), and requests per second for small lookups (HEAD of known and unknown
/// IDs, over keep-alive connections from four curl processes at once).
enum SymbolServerBench {
    static let fileSize = 100 << 20
    static let lookups = 4_000
    static let clients = 4

    /// The served tree (a 100 MB DWARF file in a dSYM, a small executable, one UUID) and its
    /// catalogue, made once per output directory; also the hostile-load benchmark's.
    static func prepare(binary: String, output: String) -> (root: String, key: String, dwarfPath: String, catalogue: String) {
        let root = Paths.join(output, "symbols-tree")
        let uuid = MachOImage.uuid(seed: 2_800)
        let key = uuid.map { String(format: "%02x", $0) }.joined()
        let dwarfPath = "App.app.dSYM/Contents/Resources/DWARF/App"
        let tree = TreeWriter(root: root)
        if (try? FileStatus.of(FilePath(tree.path(dwarfPath))))?.size != Int64(fileSize) {
            var dwarf = MachOImage.arm64(uuid: uuid)
            dwarf.fileType = 10
            var bytes = dwarf.bytes()
            var generator = SeededGenerator(seed: 28)
            bytes.reserveCapacity(fileSize)
            while bytes.count < fileSize { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
            tree.dSYM("App.app.dSYM", dwarfName: "App", dwarf: bytes)
            tree.machOApp("App.app", identifier: "org.example.bench.app", executable: MachOImage.arm64(uuid: uuid).bytes())
        }
        let catalogue = Paths.join(output, "symbols.sqlite")
        CatalogueFiles.remove(catalogue)
        _ = Timing.run(binary, ["index", root], environment: ["BUNDLEFS_CATALOGUE": catalogue])
        return (root, key, dwarfPath, catalogue)
    }

    static func run(binary: String, output: String, runs: Int, report: inout Report) throws {
        let (root, key, dwarfPath, catalogue) = prepare(binary: binary, output: output)

        let server = try SymbolServerProcess(catalogue: catalogue, logFile: Paths.join(output, "serve-symbols.log"), binary: binary, logLevel: "info")
        let python = try StaticFileServer(root: root, logFile: Paths.join(output, "http.server.log"))
        defer { python.stop() }
        let ours = server.url + "/buildid/\(key)/debuginfo", theirs = python.url + "/" + dwarfPath
        func fetch(_ url: String) -> Double { Timing.run("/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", url]) }
        _ = fetch(ours)
        _ = fetch(theirs) // warm: the file in the page cache, both servers started
        var samples = PairedSamples()
        for _ in 0..<max(runs, 5) {
            samples.view.append(fetch(ours))
            samples.native.append(fetch(theirs))
        }
        report.add("100 MB DWARF file through serve-symbols", seconds: samples.viewMedian, against: "python3 -m http.server", baselineSeconds: samples.nativeMedian,
                   goal: "(≤ 1.2x)")
        report.notes.append("serve-symbols fetch: \(PairedSamples.describe(samples.view)); http.server: \(PairedSamples.describe(samples.native)) (alternating runs)")

        for (label, id) in [("known", key), ("unknown", String(repeating: "0", count: 32))] {
            let config = Paths.join(output, "symbols-\(label).curl")
            let line = "url = \"\(server.url)/buildid/\(id)/debuginfo\"\n"
            try String(repeating: line, count: lookups / clients).write(toFile: config, atomically: true, encoding: .utf8)
            let seconds = try Timing.seconds {
                let processes = try (0..<clients).map { _ in
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    process.arguments = ["-s", "-I", "-o", "/dev/null", "--config", config]
                    process.standardOutput = FileHandle.nullDevice
                    try process.run()
                    return process
                }
                for process in processes { process.waitUntilExit() }
            }
            report.add("HEAD of \(label) IDs through serve-symbols", value: String(format: "%.0f requests/s (%d from %d keep-alive clients)",
                       Double(lookups) / seconds, lookups, clients), goal: "")
        }
        try server.stop()
    }
}

/// `python3 -m http.server` on a port it picks, serving `root`.
final class StaticFileServer {
    let process = Process()
    private(set) var url = ""

    init(root: String, logFile: String) throws {
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", root, "0"]
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try poll(timeout: 30, "http.server to listen") {
            let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            guard let range = text.range(of: #"port [0-9]+"#, options: .regularExpression) else { return false }
            url = "http://127.0.0.1:" + text[range].dropFirst(5)
            return true
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
