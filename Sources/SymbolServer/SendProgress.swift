import NIOCore

/// Whether the client of an answer being sent still takes it (SPEC.md "Symbol stores", hostile
/// clients): judged from the bytes the peer's TCP has acknowledged, so that a client reading a
/// large file slowly but steadily is told apart from one that has stopped, whatever NIO still
/// holds. Let go: a client that accepts nothing for `writeTimeout`, and one that accepts less
/// than `minimumRate` bytes a second over a window of `writeTimeout`.
struct SendProgress {
    enum Verdict: Equatable {
        case waiting
        case progressed
        /// Nothing accepted for the write timeout.
        case stalled
        /// Something, but less than the floor over the last window.
        case tooSlow(bytes: UInt64)
    }

    let writeTimeout: TimeAmount
    let minimumRate: Int
    private var acknowledged: UInt64
    private var lastProgress: NIODeadline
    private var windowStart: NIODeadline
    private var windowAcknowledged: UInt64

    init(writeTimeout: TimeAmount, minimumRate: Int, acknowledged: UInt64, now: NIODeadline) {
        self.writeTimeout = writeTimeout
        self.minimumRate = minimumRate
        self.acknowledged = acknowledged
        lastProgress = now
        windowStart = now
        windowAcknowledged = acknowledged
    }

    /// Takes the connection's acknowledged byte count at `now`.
    mutating func observe(acknowledged count: UInt64, now: NIODeadline) -> Verdict {
        let moved = count > acknowledged
        if moved {
            acknowledged = count
            lastProgress = now
        } else if now - lastProgress >= writeTimeout {
            return .stalled
        }
        if now - windowStart >= writeTimeout {
            let bytes = acknowledged - windowAcknowledged
            let floor = UInt64(minimumRate) * UInt64(max(0, (now - windowStart).nanoseconds)) / 1_000_000_000
            if bytes < floor { return .tooSlow(bytes: bytes) }
            windowStart = now
            windowAcknowledged = acknowledged
        }
        return moved ? .progressed : .waiting
    }
}
