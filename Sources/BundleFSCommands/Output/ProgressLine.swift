import CatalogueCommands
import Foundation
import Scanner
import SystemCalls

/// A one-line progress display on stderr, redrawn a few times a second while a scan runs; only
/// when stderr is a terminal.
final class ProgressLine: Sendable {
    private let running: ConditionMutex<Bool>
    private let thread: pthread_t?

    init?(label: String, progress: ScanProgress) {
        guard isatty(2) != 0 else { return nil }
        let running = ConditionMutex(true)
        self.running = running
        // Only a nicety: without a thread for it, no progress line.
        thread = try? Threads.start(stackSize: 256 << 10) {
            var stopped = false
            while !stopped {
                let line = "\(label): \(progress.directoriesVisited) directories, \(progress.bundlesRead) bundles read"
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + TerminalText.safe(line)).utf8))
                stopped = running.withLock(when: { !$0 }, timeout: 0.2) { !$0 }
            }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }

    func stop() {
        running.withLock {
            $0 = false
            running.signal()
        }
        if let thread { Threads.join(thread) }
    }
}
