import Foundation
import SystemCalls

/// Runs a program and collects what it printed; a deadline keeps a hung child from hanging the tests.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public var description: String { "exit \(status)\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)" }
}

public enum Subprocess {
    /// The directory holding the test runner, where SwiftPM also puts the package's executables.
    public static let productsDirectory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return Paths.parent(exe)
    }()

    /// The built `bundlefs` executable ($BUNDLEFS_BINARY overrides).
    public static var bundlefs: String {
        ProcessInfo.processInfo.environment["BUNDLEFS_BINARY"] ?? Paths.join(productsDirectory, "bundlefs")
    }

    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        directory: String? = nil, timeout: Double = 120
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while it runs, so a chatty child cannot block on a full pipe.
        let collected = Collected()
        let readers = try [(output, true), (errors, false)].map { pipe, isOutput in
            try Threads.start(stackSize: 1 << 20) {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(data, isOutput: isOutput)
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2000) }
        if process.isRunning {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        for reader in readers { Threads.join(reader) }
        return ProcessResult(status: process.terminationStatus, standardOutput: collected.output, standardError: collected.errors)
    }

    public static func bundlefs(_ arguments: [String], catalogue: String, environment: [String: String] = [:]) throws -> ProcessResult {
        var merged = ["BUNDLEFS_CATALOGUE": catalogue, "LANG": "C", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""]
        for (key, value) in environment { merged[key] = value }
        return try run(bundlefs, arguments, environment: merged)
    }
}

private final class Collected: @unchecked Sendable {
    private let lock = ConditionLock()
    private var outputData = Data()
    private var errorData = Data()

    func set(_ data: Data, isOutput: Bool) {
        lock.withLock { if isOutput { outputData = data } else { errorData = data } }
    }

    var output: String { lock.withLock { String(decoding: outputData, as: UTF8.self) } }
    var errors: String { lock.withLock { String(decoding: errorData, as: UTF8.self) } }
}
