import Foundation
import Scanner
import SystemCalls

/// A one-line progress display on stderr, redrawn a few times a second while a scan runs; only
/// when stderr is a terminal.
final class ProgressLine: @unchecked Sendable {
    private let lock = ConditionLock()
    private var running = true
    private var thread: pthread_t?

    init?(label: String, progress: ScanProgress) {
        guard isatty(2) != 0 else { return nil }
        // Only a nicety: without a thread for it, no progress line.
        thread = try? Threads.start(stackSize: 256 << 10) { [self] in
            var stopped = false
            while !stopped {
                let line = "\(label): \(progress.directoriesVisited) directories, \(progress.bundlesRead) bundles read"
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + TerminalText.safe(line)).utf8))
                stopped = lock.withLock {
                    if running { lock.wait(seconds: 0.2) }
                    return !running
                }
            }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }

    func stop() {
        lock.withLock {
            running = false
            lock.signal()
        }
        if let thread { Threads.join(thread) }
    }
}
