import Records
import SystemCalls

/// The scanner's threads append events here in the order the catalogue needs; the sink's batches
/// leave from here. Bounded: producers wait while the consumer is `capacity` events behind.
/// Unchecked: its vars are touched only inside `lock.withLock`. Producers and the consumer wait on
/// the lock's condition, which `Mutex` cannot, once per event of the scan's hot path, where
/// `ConditionMutex`'s generic, closure-taking calls from another module would cost.
final class EventChannel: @unchecked Sendable {
    private let lock = ConditionLock()
    private var buffer: [ScanEvent] = []
    private var capacity: Int
    private var woken = false

    /// The batch size the consumer waits for.
    let batchSize: Int

    init(capacity: Int, batchSize: Int) {
        self.capacity = capacity
        self.batchSize = batchSize
    }

    func append(_ event: ScanEvent) {
        lock.withLock {
            while buffer.count >= capacity { lock.wait() }
            buffer.append(event)
            if buffer.count == batchSize { lock.broadcast() }
        }
    }

    /// Everything queued, once at least `minimum` events are there or `seconds` have passed (or a
    /// worker finished). Large batches make few, large transactions.
    func drain(minimum: Int, waitingUpTo seconds: Double) -> [ScanEvent] {
        lock.withLock {
            let clock = ContinuousClock()
            let deadline = clock.now + .milliseconds(Int(seconds * 1000))
            while buffer.count < minimum && !woken && clock.now < deadline {
                let remaining = (deadline - clock.now).components
                lock.wait(seconds: max(0.001, Double(remaining.seconds) + Double(remaining.attoseconds) / 1e18))
            }
            woken = false
            let events = buffer
            buffer.removeAll(keepingCapacity: true)
            lock.broadcast()
            return events
        }
    }

    /// Lets producers append without waiting: for a walk on the consumer's own thread.
    func removeBound() { lock.withLock { capacity = .max } }

    /// Wakes a waiting `drain` (a worker finished; the consumer should look at its exit test).
    func wake() {
        lock.withLock {
            woken = true
            lock.broadcast()
        }
    }
}
