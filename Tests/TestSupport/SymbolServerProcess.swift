public import Foundation
import SystemCalls

/// A `bundlefs serve-symbols` on a free loopback port (it picks one: `--listen 127.0.0.1:0`, and
/// says which), its stderr in a file for the test to read.
public final class SymbolServerProcess: @unchecked Sendable {
    public let process = Process()
    let logFile: String
    /// `http://127.0.0.1:PORT`, once it listens.
    public private(set) var url = ""
    public private(set) var port = 0

    /// - Parameter binary: the `bundlefs` to run (the benchmark's release build), else the tests'.
    /// - Parameter command: `serve-web` serves the same routes and says where it listens the same way.
    /// - Parameter arguments: the command's others (`--database URL`).
    public init(catalogue: String, logFile: String, environment: [String: String] = [:], binary: String? = nil, logLevel: String = "debug",
                command: String = "serve-symbols", arguments: [String] = []) throws {
        self.logFile = logFile
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: binary ?? Subprocess.bundlefs)
        process.arguments = [command, "--listen", "127.0.0.1:0", "--catalogue", catalogue, "--log-level", logLevel] + arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try poll(timeout: 30, "serve-symbols to listen:\n\(log)") {
            if !process.isRunning { throw WatcherFailure("serve-symbols exited with \(process.terminationStatus):\n\(log)") }
            guard let range = log.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return false }
            url = String(log[range])
            port = Int(url.split(separator: ":").last!)!
            return true
        }
    }

    public var pid: Int32 { process.processIdentifier }
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { process.isRunning }

    /// Resident memory, in KiB, from /proc.
    public var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// Descriptors it holds open.
    public var openDescriptors: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0 }

    /// Connections to its port it has not closed yet (established, or closed by the client and
    /// not yet by the server), as the kernel lists them.
    public func openConnections() throws -> Int {
        let listed = try Subprocess.run("/usr/bin/ss", ["-tnH", "state", "established", "state", "close-wait", "( sport = :\(port) )"])
        guard listed.status == 0 else { throw WatcherFailure("ss: \(listed)") }
        return listed.standardOutput.split(separator: "\n").count
    }

    @discardableResult
    public func stop(timeout: Double = 30) throws -> Int32 {
        if process.isRunning { kill(pid, SIGTERM) }
        try poll(timeout: timeout, "serve-symbols to exit") { !process.isRunning }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}
