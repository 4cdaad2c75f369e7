import Foundation
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

/// The same question as a count, for tests (no wall time): how many lookups were asked and
/// answered while the slow request's thread slept in one wait for the daemon. With one thread
/// serving, the daemon answers in the order asked, so none can be; with several, many.
public enum LookupsDuringOneWait {
    public static func count(in view: MountedView, directory: String, while slow: @escaping @Sendable () -> Void) throws -> (answered: Int, lookups: Int) {
        let thread = Mutex<(id: String, finished: Bool)?>(nil)
        let handle = try Threads.start(stackSize: 1 << 20) {
            // "PID/task/TID": this thread's own directory.
            let id = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "thread-self"
            thread.withLock { $0 = (id, false) }
            slow()
            thread.withLock { $0?.finished = true }
        }
        var answered = 0, count = 0
        while true {
            guard let (id, finished) = thread.withLock({ $0 }) else { continue }
            if finished { break }
            let before = SleepingThread(id)
            _ = try? FileStatus.of(view.path(Paths.join(directory, "missing-\(count)")))
            count += 1
            if let before, before.inRequest, SleepingThread(id) == before { answered += 1 }
        }
        Threads.join(handle)
        return (answered, count)
    }
}

/// A thread of this process while it sleeps: where (its wchan) and after how many voluntary
/// switches. Two equal readings mean one sleep throughout: each new sleep is a voluntary switch.
struct SleepingThread: Equatable {
    let wchan: String
    let switches: Int

    /// Nil while it runs, or when the two readings of its switches around its wchan differ.
    init?(_ id: String) {
        let task = "/proc/\(id)/"
        func switches() -> Int? {
            let status = (try? String(contentsOfFile: task + "status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return line.flatMap { Int($0.split(separator: "\t").last ?? "") }
        }
        guard let first = switches(), let wchan = try? String(contentsOfFile: task + "wchan", encoding: .utf8), wchan != "0",
              switches() == first else { return nil }
        self.wchan = wchan
        self.switches = first
    }

    /// Waiting for the answer to a request to a FUSE daemon (fs/fuse/dev.c).
    var inRequest: Bool { wchan.contains("fuse") || wchan == "request_wait_answer" }
}
