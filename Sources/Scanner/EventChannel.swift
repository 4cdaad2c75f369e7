import SystemCalls

/// The scanner's threads append events here in the order the catalogue needs; the sink's batches
/// leave from here. Bounded: producers wait while the consumer is `capacity` events behind.
final class EventChannel: @unchecked Sendable {
    private let lock = ConditionLock()
    private var buffer: [ScanEvent] = []
    private let capacity: Int
    private var woken = false

    init(capacity: Int) { self.capacity = capacity }

    func append(_ event: ScanEvent) {
        lock.withLock {
            while buffer.count >= capacity { lock.wait() }
            buffer.append(event)
            if buffer.count == 1 { lock.broadcast() }
        }
    }

    /// Everything queued so far, waiting up to `seconds` for the first event.
    func drain(waitingUpTo seconds: Double) -> [ScanEvent] {
        lock.withLock {
            if buffer.isEmpty && seconds > 0 && !woken { lock.wait(seconds: seconds) }
            woken = false
            let events = buffer
            buffer.removeAll(keepingCapacity: true)
            lock.broadcast()
            return events
        }
    }

    /// Wakes a waiting `drain` (a worker finished; the consumer should look at its exit test).
    func wake() {
        lock.withLock {
            woken = true
            lock.broadcast()
        }
    }
}
