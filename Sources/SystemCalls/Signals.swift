#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// Delivers SIGINT, SIGTERM and SIGHUP to a handler on a thread of its own (via sigwait), so the
/// rest of the program can stop cleanly instead of being interrupted anywhere. Call `block()`
/// first thing, before any thread starts, so every thread inherits the mask.
public enum Signals {
    public static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    public static func block(_ signals: [Int32] = stopping) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts a thread that waits for the signals and calls `handler` for each.
    public static func handle(_ signals: [Int32] = stopping, _ handler: @escaping @Sendable (Int32) -> Void) throws(SystemError) {
        _ = try Threads.start(stackSize: 256 << 10) {
            var set = sigset_t()
            sigemptyset(&set)
            for signal in signals { sigaddset(&set, signal) }
            while true {
                var received: Int32 = 0
                if sigwait(&set, &received) == 0 { handler(received) }
            }
        }
    }

    /// Makes `signal` a wake-up call for the calling thread: a handler that does nothing (and no
    /// SA_RESTART), unblocked here only, so that pthread_kill interrupts this thread's blocking
    /// call with EINTR.
    public static func acceptInterruptions(by signal: Int32) {
        _ = bfs_install_interrupting_handler(signal)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
