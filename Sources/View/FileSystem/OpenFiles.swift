import CompactStorage
import Synchronization

/// What the view keeps open per node between reads: the kernel opens the view's files itself
/// (`no_open`), so no OPEN comes to open a source file and no RELEASE to close it. A node's value
/// is made at its first READ and kept, so a file replaced in SOURCE after that still reads as it
/// was, as an open file does natively. At most `limit` are kept, the least recently read going
/// first (an eighth at a time, so eviction is rare); a node's goes when the kernel forgets the node.
final class OpenFiles<Value: Sendable>: Sendable {
    private struct Kept {
        var value: Value
        var generation: UInt64
    }

    private let kept: Mutex<BoundedCache<UInt64, Kept>>
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
        kept = Mutex(BoundedCache(limit: self.limit, keeping: self.limit - self.limit / 8))
    }

    /// The value kept for a node (of this generation), if any.
    func existing(_ id: UInt64, generation: UInt64) -> Value? {
        kept.withLock { Self.current(id, generation, in: &$0) }
    }

    /// The value kept for a node, made now (outside the lock: opening may block) if there is none.
    func value(_ id: UInt64, generation: UInt64, make: () throws(ViewError) -> Value) throws(ViewError) -> Value {
        if let kept = existing(id, generation: generation) { return kept }
        let made = try make()
        return kept.withLock { kept in
            // Another read of the node may have made one meanwhile: the first one stays.
            if let first = Self.current(id, generation, in: &kept) { return first }
            kept.store(Kept(value: made, generation: generation), for: id, weight: 1)
            return made
        }
    }

    private static func current(_ id: UInt64, _ generation: UInt64, in kept: inout BoundedCache<UInt64, Kept>) -> Value? {
        guard let entry = kept.peek(id), entry.generation == generation else { return nil }
        kept.touch(id)
        return entry.value
    }

    func remove(_ id: UInt64) { kept.withLock { _ = $0.remove(id) } }
}
