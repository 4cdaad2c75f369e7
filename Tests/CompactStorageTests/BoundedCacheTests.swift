import CompactStorage
import Testing

/// The one least-recently-used policy of the view's caches: what goes, when, and what never does.
@Suite struct BoundedCacheTests {
    /// Weighs by the value itself, so each test says what every entry costs.
    func cache(limit: Int, keeping: Int, _ entries: [(String, Int)]) -> BoundedCache<String, Int> {
        var cache = BoundedCache<String, Int>(limit: limit, keeping: keeping)
        for (key, weight) in entries { cache.store(weight, for: key, weight: weight) }
        return cache
    }

    @Test func nothingGoesUntilTheLimitIsPassed() {
        let cache = cache(limit: 10, keeping: 5, [("a", 4), ("b", 3), ("c", 3)])
        #expect(cache.count == 3 && cache.weight == 10)
    }

    @Test func pastTheLimitTheLeastRecentlyUsedGoDownToWhatIsKept() {
        var cache = cache(limit: 10, keeping: 5, [("a", 3), ("b", 3), ("c", 3)])
        #expect(cache.value(for: "a") == 3, "a is now the most recently used of the three")
        let evicted = cache.store(2, for: "d", weight: 2)
        #expect(evicted.map(\.key) == ["b", "c"], "oldest first, and no more than needed")
        #expect(cache.weight == 5)
        #expect(cache.peek("a") == 3 && cache.peek("d") == 2)
    }

    @Test func theValueJustStoredStaysWhateverItWeighs() {
        var cache = cache(limit: 10, keeping: 5, [("a", 1)])
        let evicted = cache.store(100, for: "huge", weight: 100)
        #expect(evicted.map(\.key) == ["a"])
        #expect(cache.peek("huge") == 100 && cache.weight == 100)
        // The next store makes room again, the huge one going first.
        #expect(cache.store(1, for: "b", weight: 1).map(\.key) == ["huge"])
    }

    @Test func peekingAndUpdatingDoNotCountAsUse() {
        var cache = cache(limit: 10, keeping: 6, [("a", 3), ("b", 3), ("c", 3)])
        _ = cache.peek("a")
        cache.update("a") { $0 += 100 }
        #expect(cache.peek("a") == 103)
        #expect(cache.weight == 9, "an update keeps the weight given when stored")
        #expect(cache.store(3, for: "d", weight: 3).map(\.key) == ["a", "b"])
    }

    @Test func touchingCountsAsUse() {
        var cache = cache(limit: 10, keeping: 6, [("a", 3), ("b", 3), ("c", 3)])
        cache.touch("a")
        cache.touch("missing")
        #expect(cache.store(3, for: "d", weight: 3).map(\.key) == ["b", "c"])
    }

    @Test func replacingAValueReplacesItsWeight() {
        var cache = cache(limit: 10, keeping: 5, [("a", 6)])
        #expect(cache.store(2, for: "a", weight: 2).isEmpty)
        #expect(cache.weight == 2 && cache.count == 1)
        #expect(cache.peek("a") == 2)
    }

    @Test func removalsGiveBackTheirWeight() {
        var cache = cache(limit: 100, keeping: 50, [("a/1", 1), ("a/2", 2), ("b/1", 4)])
        #expect(Set(cache.removeAll { $0.hasPrefix("a/") }) == ["a/1", "a/2"])
        #expect(cache.weight == 4)
        #expect(cache.remove("b/1") == 4)
        #expect(cache.remove("b/1") == nil)
        #expect(cache.weight == 0 && cache.count == 0)
        cache.store(7, for: "c", weight: 7)
        cache.removeAll()
        #expect(cache.weight == 0 && cache.peek("c") == nil)
    }

    @Test func countingEntriesIsAWeightOfOneEach() {
        var cache = BoundedCache<Int, String>(limit: 8, keeping: 7)
        for key in 0..<8 { cache.store("\(key)", for: key, weight: 1) }
        #expect(cache.store("8", for: 8, weight: 1).map(\.key) == [0, 1])
        #expect(cache.count == 7)
    }
}
