import NIOCore
import Synchronization

/// The open connections, bounded. At the bound a new connection takes the place of the one that
/// has waited longest without a request (idle keep-alive or slow headers), so that a flood of
/// idle connections can neither exhaust descriptors nor lock out a client that asks something;
/// only when every connection is busy is the newcomer refused.
final class ConnectionTable: Sendable {
    let limit: Int
    private let state = Mutex(State())

    private struct State {
        var connections: [ObjectIdentifier: Connection] = [:]
        var counter = 0
    }

    private struct Connection {
        let channel: any Channel
        /// When it last became idle (a counter, not a clock: only the order matters).
        var idleSince: Int
        var busy = false
    }

    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { state.withLock { $0.connections.count } }

    /// Registers a new connection; returns false when it must be closed at once. Closes an idle
    /// connection to make room.
    func admit(_ channel: any Channel) -> Bool {
        let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            var evicted: (any Channel)?
            if state.connections.count >= limit {
                guard let oldest = state.connections.filter({ !$0.value.busy }).min(by: { $0.value.idleSince < $1.value.idleSince }) else {
                    return (false, nil)
                }
                state.connections[oldest.key] = nil
                evicted = oldest.value.channel
            }
            state.counter += 1
            state.connections[ObjectIdentifier(channel)] = Connection(channel: channel, idleSince: state.counter)
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    /// A request started (true) or its answer was sent (false).
    func setBusy(_ channel: any Channel, _ busy: Bool) {
        state.withLock { state in
            guard state.connections[ObjectIdentifier(channel)] != nil else { return }
            state.counter += 1
            state.connections[ObjectIdentifier(channel)]!.busy = busy
            if !busy { state.connections[ObjectIdentifier(channel)]!.idleSince = state.counter }
        }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
