import Synchronization
import SystemCalls

/// How long requests to a mounted view wait while a slow one runs (SPEC.md "Performance": one slow
/// request never stalls every other): lookups of names that do not exist, each a request to the
/// daemon, made one after another until `slow` returns on another thread.
public enum LookupsMeanwhile {
    /// The slowest lookup, how many were made, and how long `slow` took.
    public static func measure(in view: MountedView, directory: String, while slow: @escaping @Sendable () -> Void) throws
        -> (slowestLookup: Double, lookups: Int, slowSeconds: Double) {
        let finished = Mutex<Double?>(nil)
        let thread = try Threads.start(stackSize: 1 << 20) {
            let started = Clocks.monotonicSeconds()
            slow()
            let seconds = Clocks.monotonicSeconds() - started
            finished.withLock { $0 = seconds }
        }
        var slowest = 0.0, count = 0
        while finished.withLock({ $0 }) == nil {
            let started = Clocks.monotonicSeconds()
            _ = try? FileStatus.of(view.path(Paths.join(directory, "missing-\(count)")))
            slowest = max(slowest, Clocks.monotonicSeconds() - started)
            count += 1
        }
        Threads.join(thread)
        return (slowest, count, finished.withLock { $0 } ?? 0)
    }
}
