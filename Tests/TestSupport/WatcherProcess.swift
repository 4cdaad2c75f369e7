public import Catalogue
public import Foundation
import SystemCalls

/// A `bundlefs watch` running as a subprocess, its stderr kept in a file for the test to read.
public final class WatcherProcess: @unchecked Sendable {
    public let process = Process()
    public let catalogue: String
    let logFile: String

    /// - Parameter launcher: a program that runs `bundlefs` with the arguments (`/usr/bin/env`).
    /// - Parameter arguments: more options for `watch` (`--publish URL`).
    public init(roots: [String], catalogue: String, logFile: String, environment: [String: String] = [:], launcher: String? = nil,
                arguments: [String] = []) throws {
        self.catalogue = catalogue
        self.logFile = logFile
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: launcher ?? Subprocess.bundlefs)
        process.arguments = (launcher == nil ? [] : [Subprocess.bundlefs]) + ["watch"] + roots + arguments
        var merged = ProcessInfo.processInfo.environment
        merged["BUNDLEFS_CATALOGUE"] = catalogue
        merged["BUNDLEFS_SETTLE_MS"] = "10"
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// The watcher's status as it publishes it (beside the catalogue), else its row in the
    /// catalogue.
    public func status() -> WatchStatus? {
        if let published = WatchStatus.published(catalogue: FilePath(catalogue)) { return published }
        guard let catalogue = try? Catalogue(path: catalogue, mode: .readOnly) else { return nil }
        return try? catalogue.watchStatus()
    }

    /// Polls until the watcher says it is watching (its initial index done), or fails. The
    /// deadline is a hang's: on a loaded 2-core machine a 3,000-bundle crawl took over 60 s, and
    /// a watcher that exits fails at once.
    public func waitUntilWatching(timeout: Double = 300) throws {
        try poll(timeout: timeout, "the watcher to start") {
            if !process.isRunning { throw WatcherFailure("the watcher exited with \(process.terminationStatus):\n\(log)") }
            guard let status = status() else { return false }
            return status.pid == pid && status.state == .watching
        }
    }

    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// SIGTERM (or another signal), then the exit status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, timeout: Double = 30) throws -> Int32 {
        if process.isRunning { kill(pid, signal) }
        try poll(timeout: timeout, "the watcher to exit") { !process.isRunning }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGCONT)
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

public struct WatcherFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass (then throws, saying
/// `what` as it reads then: a listing in it shows the state that failed, not the one before).
public func poll(timeout: Double, _ what: @autoclosure () -> String, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return }
        if Date() > deadline { throw WatcherFailure("timed out after \(timeout) s waiting for \(what())") }
        usleep(20_000)
    }
}

/// Polls until the catalogue equals a fresh index of `root`; throws with the first difference.
/// The fresh index is made once (the tree holds still while a test waits) and once more at the
/// deadline, before failing, in case the tree did change.
public func waitForConvergence(catalogue path: String, root: String, timeout: Double = 30, _ context: String = "") throws {
    try waitForConvergence(catalogue: path, to: { try CatalogueDump.ofFreshIndex(root) }, timeout: timeout, context)
}

/// Polls until the catalogue's dump equals `oracle()`'s, taken at the start and again at the deadline.
public func waitForConvergence(catalogue path: String, to oracle: () throws -> CatalogueDump, timeout: Double, _ context: String) throws {
    var expected = try oracle()
    var retaken = false
    var lastDifference = ""
    // The catalogue is dumped again once commits have changed its files and then paused for a
    // turn (and every twentieth turn whatever they say): a dump of a large catalogue in a debug
    // build costs more than the watcher's work the test waits for, and mid-crawl it is in vain.
    var compared: [Int64]? = nil, previous = commitStamp(path)
    var skipped = 0
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        let stamp = commitStamp(path)
        defer { previous = stamp }
        if (stamp != compared && stamp == previous) || skipped >= 20 {
            skipped = 0
            if let catalogue = try? Catalogue(path: path, mode: .readOnly), let current = try? CatalogueDump(catalogue) {
                if current == expected { return }
                lastDifference = current.difference(from: expected)
                compared = stamp
            }
        } else {
            skipped += 1
        }
        if Date() > deadline {
            if retaken { throw WatcherFailure("\(context): the catalogue did not converge in \(timeout) s: \(lastDifference)") }
            expected = try oracle()
            retaken = true
            compared = nil
            continue
        }
        usleep(50_000)
    }
}

/// What a commit changes: the catalogue's file and its WAL (inode, size, modification and change
/// times; a catalogue recreated is a new file).
private func commitStamp(_ path: String) -> [Int64] {
    [path, path + "-wal"].flatMap { file -> [Int64] in
        guard let status = try? FileStatus.of(FilePath(file)) else { return [-1] }
        return [Int64(bitPattern: status.inode), status.size, status.modificationTime, status.changeTime]
    }
}
