public import Foundation
import SystemCalls

/// A `bundlefs mount -f` running as a subprocess on a real mount point. Whatever happens in the
/// test, releasing it stops the daemon and leaves nothing mounted (lazily unmounting a mount whose
/// daemon died).
public final class MountedView: @unchecked Sendable {
    public let process = Process()
    public let mountPoint: String
    public let catalogue: String
    let logFile: String
    /// Set once the daemon has exited and unmounted: from then on the mount point may hold
    /// another mount, which releasing this one must not touch.
    private var finished = false

    /// - Parameter launcher: a program and its arguments that run the daemon's command line
    ///   (`setpriv` with fewer capabilities, say).
    public init(source: String, mountPoint: String, catalogue: String, languages: String, logFile: String,
                arguments: [String] = [], environment: [String: String] = [:], launcher: [String] = []) throws {
        self.mountPoint = mountPoint
        self.catalogue = catalogue
        self.logFile = logFile
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let command = launcher + [Subprocess.bundlefs, "mount", source, mountPoint, "-f", "--lang", languages, "--catalogue", catalogue, "-v"]
            + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var merged = ProcessInfo.processInfo.environment
        merged["BUNDLEFS_SETTLE_MS"] = "10"
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        do {
            try poll(timeout: 120, "the view to be mounted on \(mountPoint)") {
                if !process.isRunning { throw WatcherFailure("bundlefs mount exited with \(process.terminationStatus):\n\(log)") }
                return isMounted(mountPoint)
            }
        } catch {
            cleanUp()
            throw error
        }
    }

    public var pid: Int32 { process.processIdentifier }
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// A path in the view.
    public func path(_ relative: String) -> String { Paths.join(mountPoint, relative) }

    /// Sends `signal` and waits for the daemon to exit; returns its status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, timeout: Double = 30) throws -> Int32 {
        if process.isRunning { kill(pid, signal) }
        try poll(timeout: timeout, "bundlefs mount to exit") { !process.isRunning }
        if !isMounted(mountPoint) { finished = true }
        return process.terminationStatus
    }

    /// Stops the daemon and unmounts now, whoever else still holds this view.
    public func cleanUp() {
        if finished { return }
        if process.isRunning {
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(pid, SIGKILL) }
            process.waitUntilExit()
        }
        if isMounted(mountPoint) { _ = try? Subprocess.run("/usr/bin/fusermount3", ["-uz", mountPoint], timeout: 30) }
        finished = true
    }

    deinit { cleanUp() }
}

/// Whether something is mounted exactly at `path`.
public func isMounted(_ path: String) -> Bool { MountTable.isMountPoint(FilePath(path)) }
