#if canImport(Glibc)
import Glibc
#endif

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
    public static func handle(_ signals: [Int32] = stopping, _ handler: @escaping @Sendable (Int32) -> Void) {
        _ = Threads.spawn(stackSize: 256 << 10) {
            var set = sigset_t()
            sigemptyset(&set)
            for signal in signals { sigaddset(&set, signal) }
            while true {
                var received: Int32 = 0
                if sigwait(&set, &received) == 0 { handler(received) }
            }
        }
    }
}
