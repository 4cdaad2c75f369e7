import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Reads inotify events on a thread of its own, in large batches, into memory, so the kernel's
/// queue (16,384 events by default) overflows only when the whole process is stopped. When more
/// than `limit` events pile up unprocessed, they are dropped and an overflow is reported instead:
/// a rescan recovers from either. With fanotify marks, their group is read too, and its events
/// come out as inotify's (`FilesystemMarks.translate`), those outside the roots dropped.
///
/// Reads are at least `readInterval` apart: a first event after a quiet spell is read at once,
/// but a stream of them (a fanotify mark hears every writer on the filesystem) is read in batches
/// rather than one wake-up per event; waking up was most of what such a stream cost, and the
/// kernel merges the events of one name while they wait.
final class EventReader: Sendable {
    private let inotify: Inotify
    private let marks: FilesystemMarks?
    private let wake: WakePipe
    private let queue = ConditionMutex(Queue())
    private let limit: Int
    private let readInterval: Double
    /// Events read since the start, for the status row (read by the watcher's thread).
    private let counted = Atomic<Int>(0)
    /// Fanotify events about directories outside the roots, dropped unread.
    private let dropped = Atomic<Int>(0)
    /// Times the thread woke up to read, for tests.
    private let wakeUps = Atomic<Int>(0)

    static let fanotifyBufferSize = 256 * 1024

    private struct Queue: Sendable {
        var events: [InotifyEvent] = []
        var stopped = false
        var overflowed = false
        /// Set by `wakeConsumer`, so that a `take` returns even though no event came.
        var woken = false
        var thread: pthread_t?
    }

    /// Fails when the process has no descriptors left for the wake-up pipe.
    init(inotify: Inotify, marks: FilesystemMarks?, limit: Int, readInterval: Double) throws {
        self.inotify = inotify
        self.marks = marks
        self.limit = limit
        self.readInterval = readInterval
        wake = try WakePipe()
    }

    var total: Int { counted.load(ordering: .relaxed) }
    var droppedOutside: Int { dropped.load(ordering: .relaxed) }
    var reads: Int { wakeUps.load(ordering: .relaxed) }

    func start() throws(SystemError) {
        let thread = try Threads.start(stackSize: 512 << 10) { [self] in run() }
        queue.withLock { $0.thread = thread }
    }

    private func run() {
        let descriptors = [inotify.descriptor] + (marks.map { [$0.fanotify.descriptor] } ?? [])
        // One buffer for the thread's life: fanotify's events are translated where they lie in it.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.fanotifyBufferSize, alignment: 8)
        defer { buffer.deallocate() }
        var lastRead = -Double.infinity
        while true {
            // Too soon after the last read: let events gather (only a stop cuts the pause short).
            let pause = lastRead + readInterval - Clocks.monotonicSeconds()
            if pause > 0 {
                _ = Readiness.wait(for: [], orWakeUp: wake, timeoutMilliseconds: Int32((pause * 1000).rounded(.up)))
                if queue.withLock({ $0.stopped }) { return }
            }
            let ready = Readiness.wait(for: descriptors, orWakeUp: wake)
            if queue.withLock({ $0.stopped }) { return }
            guard let ready else { continue }
            lastRead = Clocks.monotonicSeconds()
            wakeUps.add(1, ordering: .relaxed)
            var events: [InotifyEvent] = []
            if ready[0], let read = try? inotify.readEvents() { events = read }
            if let marks, ready.count > 1, ready[1], let read = try? marks.read(into: buffer) {
                dropped.add(read.dropped, ordering: .relaxed)
                events += read.events
            }
            guard !events.isEmpty else { continue }
            counted.add(events.count, ordering: .relaxed)
            queue.withLock { queued in
                if queued.events.count + events.count > limit {
                    queued.events.removeAll()
                    queued.overflowed = true
                } else {
                    queued.events += events
                }
                queue.broadcast()
            }
        }
    }

    /// The events read so far, waiting up to `seconds` for the first one. An internal overflow
    /// comes back as the kernel's IN_Q_OVERFLOW event.
    func take(waitingUpTo seconds: Double) -> [InotifyEvent] {
        queue.withLock(when: { !$0.events.isEmpty || $0.overflowed || $0.stopped || $0.woken }, timeout: seconds) { queued in
            queued.woken = false
            var events = queued.events
            queued.events.removeAll(keepingCapacity: true)
            if queued.overflowed {
                queued.overflowed = false
                events.append(InotifyEvent(watch: -1, mask: .queueOverflow, cookie: 0, name: nil))
            }
            return events
        }
    }

    var pending: Int { queue.withLock { $0.events.count } }

    /// Wakes a consumer waiting in `take`, or makes its next `take` return at once (to notice a
    /// stop or a rescan request even when it comes just before the wait).
    func wakeConsumer() {
        queue.withLock {
            $0.woken = true
            queue.broadcast()
        }
    }

    func stop() {
        let thread = queue.withLock { queued -> pthread_t? in
            queued.stopped = true
            queue.broadcast()
            return queued.thread
        }
        wake.wake()
        if let thread { Threads.join(thread) }
    }
}
