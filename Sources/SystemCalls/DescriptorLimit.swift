#if canImport(Glibc)
import Glibc
#endif

/// The process's limit of open files (`RLIMIT_NOFILE`).
public enum DescriptorLimit {
    /// What any bundlefs command needs: libdispatch, under GRDB, traps rather than fails when it
    /// cannot get a descriptor, so a process started with fewer ends with a message instead.
    public static let needed = 64

    /// RLIM_INFINITY, which Swift imports as an overflowing literal.
    private static let infinity = rlim_t.max

    /// Raises the soft limit to `wanted` where the hard limit allows (never lowers it); returns the
    /// soft limit then in force.
    @discardableResult
    public static func raise(toAtLeast wanted: Int) -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return Int.max }
        if limit.rlim_cur != infinity && limit.rlim_cur < rlim_t(wanted) {
            var raised = limit
            raised.rlim_cur = limit.rlim_max == infinity ? rlim_t(wanted) : min(rlim_t(wanted), limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == infinity ? Int.max : Int(clamping: limit.rlim_cur)
    }
}
