import Synchronization

/// What the view keeps open per node between reads: the kernel opens the view's files itself
/// (`no_open`), so no OPEN comes to open a source file and no RELEASE to close it. A node's value
/// is made at its first READ and kept, so a file replaced in SOURCE after that still reads as it
/// was, as an open file does natively. At most `limit` are kept, the least recently read going
/// first; a node's goes when the kernel forgets the node.
final class OpenFiles<Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var generation: UInt64
        var lastUse: UInt64
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// The value kept for a node (of this generation), if any.
    func existing(_ id: UInt64, generation: UInt64) -> Value? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.generation == generation else { return nil }
            state.clock += 1
            state.entries[id]?.lastUse = state.clock
            return entry.value
        }
    }

    /// The value kept for a node, made now (outside the lock: opening may block) if there is none.
    func value(_ id: UInt64, generation: UInt64, make: () throws(ViewError) -> Value) throws(ViewError) -> Value {
        if let kept = existing(id, generation: generation) { return kept }
        let made = try make()
        return state.withLock { state in
            state.clock += 1
            // Another read of the node may have made one meanwhile: the first one stays.
            if let entry = state.entries[id], entry.generation == generation {
                state.entries[id]?.lastUse = state.clock
                return entry.value
            }
            state.entries[id] = Entry(value: made, generation: generation, lastUse: state.clock)
            if state.entries.count > limit { Self.evict(&state, keeping: limit - limit / 8) }
            return made
        }
    }

    /// Closes the least recently used down to `keeping` (a batch at a time, so eviction is rare).
    private static func evict(_ state: inout State, keeping: Int) {
        let oldest = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(state.entries.count - keeping)
        for (id, _) in oldest { state.entries[id] = nil }
    }

    func remove(_ id: UInt64) { _ = state.withLock { $0.entries.removeValue(forKey: id) } }
}
