#if canImport(Glibc)
import Glibc
#endif

/// Waits for any of several descriptors (an inotify and a fanotify group) to become readable.
public enum Readiness {
    /// Which of `descriptors` are readable; nil when `wake` became readable first (or on timeout).
    public static func wait(for descriptors: [Int32], orWakeUp wake: WakePipe, timeoutMilliseconds: Int32 = -1) -> [Bool]? {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        polled.append(pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0))
        while true {
            let result = poll(&polled, nfds_t(polled.count), timeoutMilliseconds)
            if result < 0 && errno == EINTR { continue }
            guard result > 0, polled[polled.count - 1].revents == 0 else { return nil }
            return polled.dropLast().map { $0.revents & Int16(POLLIN) != 0 }
        }
    }
}
