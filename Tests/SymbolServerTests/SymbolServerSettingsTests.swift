import Foundation
import Testing
import TestSupport

/// `serve-symbols` is made by the daemon as `serve`'s `symbols =` is (issue 39): the
/// `BUNDLEFS_SYMBOLS_*` settings apply, and an address other hosts reach is warned about.
@Suite struct SymbolServerSettingsTests {
    @Test func anAddressOtherHostsReachIsWarnedAboutAndTheSettingsApply() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let logFile = fixture.temporary.appending("server.log")
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.bundlefs)
        process.arguments = ["serve-symbols", "--listen", "0.0.0.0:0", "--catalogue", fixture.catalogue, "--log-level", "debug"]
        process.environment = ProcessInfo.processInfo.environment.merging(["BUNDLEFS_SYMBOLS_HEADER_TIMEOUT_MS": "500"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        func log() -> String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
        var port = 0
        try poll(timeout: 30, "serve-symbols to listen\n\(log())") {
            guard let range = log().range(of: #"http://0\.0\.0\.0:[0-9]+"#, options: .regularExpression) else { return false }
            port = Int(log()[range].split(separator: ":").last!)!
            return true
        }
        #expect(log().contains("serving symbols to the network: whoever reaches 0.0.0.0:\(port) reads the catalogued files"), "\(log())")
        let silent = try #require(RawConnection(port: port))
        try poll(timeout: 60, "the silent connection cut off by the configured head timeout\n\(log())") {
            log().contains("no request head within 0.5 seconds; closed")
        }
        try poll(timeout: 10, "the cut-off to reach this end") { silent.isClosedByPeer }
        kill(process.processIdentifier, SIGTERM)
        try poll(timeout: 30, "serve-symbols to exit") { !process.isRunning }
        #expect(process.terminationStatus == 0)
        // Stopped once: a second close of a server already shut down is an error SwiftNIO prints.
        #expect(!log().contains("ERROR"), "\(log())")
    }
}
