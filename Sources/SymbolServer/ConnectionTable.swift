import NIOCore
import Synchronization

/// The open connections, bounded. At the bound a new connection takes the place of the one that
/// has gone longest without progress: idle (keep-alive or slow headers) since longest, or stuck
/// in an answer its client has accepted nothing of for `stallGrace`. So neither a flood of idle
/// connections nor one of clients that ask and never read can lock out a client; only when every
/// connection is looking something up or moving bytes is the newcomer refused.
final class ConnectionTable: Sendable {
    enum Activity: Sendable {
        /// Waiting for a request's head.
        case idle
        /// A request is being looked up: the server's work, never evicted.
        case working
        /// An answer is being sent.
        case sending
    }

    let limit: Int
    let stallGrace: TimeAmount
    private let state = Mutex<[ObjectIdentifier: Connection]>([:])

    private struct Connection {
        let channel: any Channel
        var activity: Activity
        /// When it became idle, or when its client last accepted bytes of an answer.
        var lastProgress: NIODeadline
    }

    init(limit: Int, stallGrace: TimeAmount) {
        self.limit = limit
        self.stallGrace = stallGrace
    }

    var count: Int { state.withLock { $0.count } }

    /// Registers a new connection; returns false when it must be closed at once. Closes an idle
    /// or stuck connection to make room.
    func admit(_ channel: any Channel) -> Bool {
        let now = NIODeadline.now()
        let (admitted, evicted) = state.withLock { connections -> (Bool, Connection?) in
            var evicted: Connection?
            if connections.count >= limit {
                let stalledBefore = now - stallGrace
                var oldest: (key: ObjectIdentifier, since: NIODeadline)?
                for (key, connection) in connections where connection.lastProgress < oldest?.since ?? .distantFuture {
                    switch connection.activity {
                    case .idle: oldest = (key, connection.lastProgress)
                    case .sending where connection.lastProgress <= stalledBefore: oldest = (key, connection.lastProgress)
                    case .working, .sending: continue
                    }
                }
                guard let oldest else { return (false, nil) }
                evicted = connections[oldest.key]
                connections[oldest.key] = nil
            }
            connections[ObjectIdentifier(channel)] = Connection(channel: channel, activity: .idle, lastProgress: now)
            return (true, evicted)
        }
        // A stuck client is reset: a plain close would queue the FIN behind bytes it never takes.
        if let evicted { evicted.activity == .sending ? evicted.channel.abort() : evicted.channel.close(promise: nil) }
        return admitted
    }

    /// A request's head arrived (`.working`), its answer started (`.sending`) or was sent (`.idle`).
    func set(_ channel: any Channel, _ activity: Activity) {
        let now = NIODeadline.now()
        state.withLock { connections in
            guard connections[ObjectIdentifier(channel)] != nil else { return }
            connections[ObjectIdentifier(channel)]!.activity = activity
            if activity != .working { connections[ObjectIdentifier(channel)]!.lastProgress = now }
        }
    }

    /// The client accepted bytes of the answer being sent.
    func progressed(_ channel: any Channel) {
        let now = NIODeadline.now()
        state.withLock { connections in
            guard connections[ObjectIdentifier(channel)] != nil else { return }
            connections[ObjectIdentifier(channel)]!.lastProgress = now
        }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
