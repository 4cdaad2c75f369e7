/// Values kept while they are used, within a bound on what they weigh together (entries, members,
/// bytes: each owner says). Past the bound, the least recently used go, a batch at a time (down to
/// `keeping`), so the sort that finds them is rare; the value just stored never goes. Not locked:
/// its owner keeps it behind its own lock, with whatever else that lock guards.
public struct BoundedCache<Key: Hashable, Value> {
    @usableFromInline struct Entry {
        @usableFromInline var value: Value
        @usableFromInline var weight: Int
        @usableFromInline var lastUse: UInt64

        @inlinable init(value: Value, weight: Int, lastUse: UInt64) {
            self.value = value
            self.weight = weight
            self.lastUse = lastUse
        }
    }

    @usableFromInline var entries: [Key: Entry] = [:]
    @usableFromInline var clock: UInt64 = 0
    @usableFromInline var total = 0
    /// Eviction starts above this weight ...
    public let limit: Int
    /// ... and stops at this one.
    public let keeping: Int

    @inlinable public init(limit: Int, keeping: Int) {
        self.limit = limit
        self.keeping = keeping
    }

    public var count: Int { entries.count }
    /// What the values held weigh together.
    public var weight: Int { total }

    /// The value for `key`, marked as used now.
    @inlinable public mutating func value(for key: Key) -> Value? {
        clock += 1
        guard let index = entries.index(forKey: key) else { return nil }
        entries.values[index].lastUse = clock
        return entries.values[index].value
    }

    /// The value for `key`, without marking it used.
    @inlinable public func peek(_ key: Key) -> Value? { entries[key]?.value }

    /// Marks the value for `key` (if any) used now.
    @inlinable public mutating func touch(_ key: Key) {
        clock += 1
        guard let index = entries.index(forKey: key) else { return }
        entries.values[index].lastUse = clock
    }

    /// Changes a held value in place (its weight and recency stay as they were).
    @inlinable public mutating func update(_ key: Key, _ change: (inout Value) -> Void) {
        guard let index = entries.index(forKey: key) else { return }
        change(&entries.values[index].value)
    }

    /// Keeps `value` for `key` (replacing what was there), then evicts the least recently used
    /// others if the bound is passed; returns what was evicted.
    @inlinable @discardableResult
    public mutating func store(_ value: Value, for key: Key, weight: Int) -> [(key: Key, value: Value)] {
        clock += 1
        if let old = entries.updateValue(Entry(value: value, weight: weight, lastUse: clock), forKey: key) { total -= old.weight }
        total += weight
        guard total > limit else { return [] }
        var evicted: [(key: Key, value: Value)] = []
        for (oldKey, entry) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where total > keeping && oldKey != key {
            entries[oldKey] = nil
            total -= entry.weight
            evicted.append((oldKey, entry.value))
        }
        return evicted
    }

    @inlinable @discardableResult
    public mutating func remove(_ key: Key) -> Value? {
        guard let old = entries.removeValue(forKey: key) else { return nil }
        total -= old.weight
        return old.value
    }

    /// Removes every value whose key satisfies `isRemoved`; returns their keys.
    @inlinable @discardableResult
    public mutating func removeAll(where isRemoved: (Key) -> Bool) -> [Key] {
        let hit = entries.keys.filter(isRemoved)
        for key in hit { remove(key) }
        return hit
    }

    @inlinable public mutating func removeAll() {
        entries.removeAll()
        total = 0
    }
}

extension BoundedCache: Sendable where Key: Sendable, Value: Sendable {}
extension BoundedCache.Entry: Sendable where Value: Sendable {}
