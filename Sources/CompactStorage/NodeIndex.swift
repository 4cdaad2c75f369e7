/// An open-addressing hash set of node ids (4 bytes a slot), hashed and compared through the
/// owner's own fields (the view's node table, the watcher's directory tree), so finding the node for a key costs no per-key allocation: a
/// Dictionary keyed by (kind, device, inode) would cost ten times the memory at a million nodes.
public struct NodeIndex: Sendable {
    private var slots: [UInt32]
    public private(set) var count = 0
    private var tombstones = 0
    private static let empty: UInt32 = 0
    private static let tombstone = UInt32.max

    public init() { slots = [UInt32](repeating: Self.empty, count: 1024) }

    /// The id whose key hashes to `hash` and satisfies `matches`.
    public func find(hash: Int, matches: (UInt32) -> Bool) -> UInt32? {
        let mask = slots.count - 1
        var index = hash & mask
        while true {
            let id = slots[index]
            if id == Self.empty { return nil }
            if id != Self.tombstone && matches(id) { return id }
            index = (index + 1) & mask
        }
    }

    /// Adds an id not yet present; `hashOf` rehashes existing ids when the table grows.
    public mutating func insert(_ id: UInt32, hash: Int, hashOf: (UInt32) -> Int) {
        if (count + tombstones + 1) * 4 > slots.count * 3 { rebuild(capacity: count * 2 >= slots.count / 2 ? slots.count * 2 : slots.count, hashOf: hashOf) }
        let mask = slots.count - 1
        var index = hash & mask
        while slots[index] != Self.empty && slots[index] != Self.tombstone { index = (index + 1) & mask }
        if slots[index] == Self.tombstone { tombstones -= 1 }
        slots[index] = id
        count += 1
    }

    public mutating func remove(_ id: UInt32, hash: Int) {
        let mask = slots.count - 1
        var index = hash & mask
        while slots[index] != Self.empty {
            if slots[index] == id {
                slots[index] = Self.tombstone
                tombstones += 1
                count -= 1
                return
            }
            index = (index + 1) & mask
        }
    }

    private mutating func rebuild(capacity: Int, hashOf: (UInt32) -> Int) {
        let old = slots
        slots = [UInt32](repeating: Self.empty, count: capacity)
        tombstones = 0
        let mask = capacity - 1
        for id in old where id != Self.empty && id != Self.tombstone {
            var index = hashOf(id) & mask
            while slots[index] != Self.empty { index = (index + 1) & mask }
            slots[index] = id
        }
    }
}
