import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Reads inotify events on a thread of its own, in large batches, into memory, so the kernel's
/// queue (16,384 events by default) overflows only when the whole process is stopped. When more
/// than `limit` events pile up unprocessed, they are dropped and an overflow is reported instead:
/// a rescan recovers from either.
final class EventReader: @unchecked Sendable {
    private let inotify: Inotify
    private let wake: WakePipe
    private let lock = ConditionLock()
    private var queued: [InotifyEvent] = []
    private var stopped = false
    private var overflowed = false
    private var thread: pthread_t?
    private let limit: Int
    /// Events read since the start, for the status row (read by the watcher's thread).
    private let counted = Atomic<Int>(0)

    /// Fails when the process has no descriptors left for the wake-up pipe.
    init(inotify: Inotify, limit: Int) throws {
        self.inotify = inotify
        self.limit = limit
        wake = try WakePipe()
    }

    var total: Int { counted.load(ordering: .relaxed) }

    func start() throws(SystemError) {
        thread = try Threads.start(stackSize: 512 << 10) { [self] in run() }
    }

    private func run() {
        while true {
            let ready = inotify.waitForEvents(orWakeUp: wake)
            if lock.withLock({ stopped }) { return }
            guard ready, let events = try? inotify.readEvents() else { continue }
            counted.add(events.count, ordering: .relaxed)
            lock.withLock {
                if queued.count + events.count > limit {
                    queued.removeAll()
                    overflowed = true
                } else {
                    queued += events
                }
                lock.broadcast()
            }
        }
    }

    /// The events read so far, waiting up to `seconds` for the first one. An internal overflow
    /// comes back as the kernel's IN_Q_OVERFLOW event.
    func take(waitingUpTo seconds: Double) -> [InotifyEvent] {
        lock.withLock {
            if queued.isEmpty && !overflowed && !stopped && seconds > 0 { lock.wait(seconds: seconds) }
            var events = queued
            queued.removeAll(keepingCapacity: true)
            if overflowed {
                overflowed = false
                events.append(InotifyEvent(watch: -1, mask: .queueOverflow, cookie: 0, name: nil))
            }
            return events
        }
    }

    var pending: Int { lock.withLock { queued.count } }

    /// Wakes a consumer waiting in `take` (to notice a stop or a rescan request).
    func wakeConsumer() { lock.withLock { lock.broadcast() } }

    func stop() {
        lock.withLock {
            stopped = true
            lock.broadcast()
        }
        wake.wake()
        if let thread { Threads.join(thread) }
    }
}
