import Foundation

/// Another process holding SQLite's write lock on a catalogue: an `sqlite3` shell in `BEGIN
/// EXCLUSIVE`, from `init` (which returns once the lock is held) until `release()`, so that a test
/// chooses when the fault starts and ends instead of waiting for a clock.
public final class CatalogueLockHolder: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let errors = Pipe()

    public init(catalogue: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [catalogue]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // It waits out a transaction of the daemon's own (`.timeout`), and gives up on any error.
        input.fileHandleForWriting.write(Data(".bail on\n.timeout 30000\nBEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        let answer = output.fileHandleForReading.readData(ofLength: 7)
        guard answer == Data("locked\n".utf8) else {
            release()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw WatcherFailure("sqlite3 could not lock \(catalogue): \(message)")
        }
    }

    public var isHolding: Bool { process.isRunning }

    /// Ends the shell (its transaction rolls back) and waits until it has exited: the lock is gone.
    public func release() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}
