#if canImport(Glibc)
import Glibc
#endif

/// The two clocks the program reads: wall time for what is stored (scan stamps, status rows),
/// monotonic time for intervals and deadlines.
public enum Clocks {
    /// CLOCK_REALTIME in nanoseconds since the epoch.
    public static func wallNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// CLOCK_MONOTONIC in seconds.
    public static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
