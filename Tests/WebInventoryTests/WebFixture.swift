import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A tree a web inventory reader would see: a universal application with English and German
/// names, an icon and the dSYM of its arm64 slice; an Intel-only application; an application
/// whose display name is an HTML attack. Catalogued by `bundlefs index`, served by `serve-web`.
final class WebFixture: @unchecked Sendable {
    let temporary = TemporaryDirectory("web")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }
    static let hostileName = "<img src=x onerror=alert(1)>"
    let armUUID = MachOImage.uuid(seed: 4001)
    var armKey: String { armUUID.map { String(format: "%02x", $0) }.joined() }

    init() throws {
        tree.macApp("Applications/Calculator.app", identifier: "org.example.calculator",
                    info: ["CFBundleIconFile": .string("Calculator"), "CFBundleShortVersionString": .string("2.1"), "LSHasLocalizedDisplayName": .bool(true),
                           "CFBundleName": .string("Calculator"), "CFBundleDevelopmentRegion": .string("en")],
                    localizedStrings: ["en": ["CFBundleDisplayName": "Calculator"], "de": ["CFBundleDisplayName": "Rechner"]])
        tree.file("Applications/Calculator.app/Contents/MacOS/Calculator",
                  MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 4002)), .arm64(uuid: armUUID)]), mode: 0o755)
        tree.file("Applications/Calculator.app/Contents/Resources/Calculator.icns",
                  IconFixtures.icns([("ic08", IconFixtures.png(IconFixtures.disc(side: 256, red: 0x20, green: 0x80, blue: 0xD0)))]))
        var dwarf = MachOImage.arm64(uuid: armUUID)
        dwarf.fileType = 10
        tree.dSYM("Applications/Calculator.app.dSYM", dwarfName: "Calculator", dwarf: dwarf.bytes())

        tree.macApp("Applications/Legacy.app", identifier: "org.example.legacy",
                    info: ["CFBundleIconFile": .string("Legacy.png"), "CFBundleShortVersionString": .string("1.0")])
        tree.file("Applications/Legacy.app/Contents/MacOS/Legacy", MachOImage.x86_64(uuid: MachOImage.uuid(seed: 4003)).bytes(), mode: 0o755)
        tree.file("Applications/Legacy.app/Contents/Resources/Legacy.png", IconFixtures.png(IconFixtures.disc(side: 64, red: 0xC0, green: 0x40, blue: 0x20)))

        // The name the Finder would show, in every language.
        tree.macApp("Applications/Hostile.app", identifier: "org.example.hostile",
                    info: ["CFBundleName": .string("Hostile"), "LSHasLocalizedDisplayName": .bool(true), "CFBundleDevelopmentRegion": .string("en")],
                    localizedStrings: ["en": ["CFBundleDisplayName": Self.hostileName], "de": ["CFBundleDisplayName": Self.hostileName]])
        try index()
    }

    func index() throws {
        let indexed = try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue)
        guard indexed.status == 0 else { throw Toolchain.ToolMissing(name: "index: \(indexed)") }
    }
}

/// A `bundlefs serve-web` on a free loopback port, its log (one line per request at debug) in a file.
final class WebServerProcess: @unchecked Sendable {
    let process = Process()
    let logFile: String
    private(set) var url = ""

    init(catalogue: String, logFile: String, arguments: [String] = []) throws {
        self.logFile = logFile
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: Subprocess.bundlefs)
        process.arguments = ["serve-web", "--listen", "127.0.0.1:0", "--catalogue", catalogue, "--log-level", "debug"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try poll(timeout: 30, "serve-web to listen:\n\(log)") {
            if !process.isRunning { throw WatcherFailure("serve-web exited with \(process.terminationStatus):\n\(log)") }
            guard let range = log.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return false }
            url = String(log[range])
            return true
        }
    }

    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// The requests it answered, as its debug log says: target, status, bytes sent.
    var requests: [(target: String, status: Int, bytes: Int)] {
        log.split(separator: "\n").compactMap { line in
            guard let match = line.firstMatch(of: #/ (GET|HEAD) (\S+) (\d{3}) (\d+) bytes/#) else { return nil }
            return (String(match.2), Int(match.3)!, Int(match.4)!)
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }
}

/// An answer fetched by curl, outside any browser: status, headers, body bytes.
struct FetchedAnswer {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }

    static func get(_ url: String, headers: [String] = [], in directory: TemporaryDirectory) throws -> FetchedAnswer {
        let name = UUID().uuidString
        let head = directory.appending(name + ".head"), body = directory.appending(name + ".body")
        let arguments = ["-sS", "-D", head, "-o", body] + headers.flatMap { ["-H", $0] } + [url]
        let result = try Subprocess.run("/usr/bin/curl", arguments)
        guard result.status == 0 else { throw Toolchain.ToolMissing(name: "curl \(url): \(result)") }
        let lines = try String(contentsOfFile: head, encoding: .utf8).split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: body))).map { Array($0) } ?? []
        return FetchedAnswer(status: status, headers: fields, body: bytes)
    }
}
