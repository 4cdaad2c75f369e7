import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Processor time the calling thread has used, in seconds: what a bound on a parser's work is
/// held to in tests. Wall time is the benchmark's; on a loaded machine it counts other processes'
/// turns too, and a bound on it fails there without a fault.
public func threadSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
