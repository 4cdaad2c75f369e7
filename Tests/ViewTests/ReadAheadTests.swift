import Synchronization
import Testing
@testable import View
#if canImport(Glibc)
import Glibc
#endif

/// `ReadAhead`: values made on another thread, handed out once, only at the version they were
/// made at and while fresh, newest keys first, within a bound.
@Suite struct ReadAheadTests {
    /// Keys made, in the order they were made.
    final class Log: Sendable {
        let made = Mutex<[Int]>([])
        var all: [Int] { made.withLock { $0 } }
    }

    final class Flag: Sendable {
        private let raised = Atomic(false)
        var isRaised: Bool { raised.load(ordering: .acquiring) }
        func raise() { raised.store(true, ordering: .releasing) }
    }

    static func maker(_ log: Log, version: Int = 1) -> ReadAhead<Int, String>.Maker {
        { key in
            log.made.withLock { $0.append(key) }
            return ("value \(key)", version)
        }
    }

    static func waitUntilMade(_ log: Log, count: Int) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while log.all.count < count {
            try #require(ContinuousClock.now < deadline, "only \(log.all.count) of \(count) made")
            sched_yield()
        }
    }

    /// Schedules `key` with a maker that starts at once and finishes only when the gate opens.
    static func heldKey(_ key: Int, _ ahead: ReadAhead<Int, String>, _ log: Log) throws -> Flag {
        let gate = Flag(), started = Flag()
        ahead.schedule([key]) { key in
            started.raise()
            while !gate.isRaised { sched_yield() }
            log.made.withLock { $0.append(key) }
            return ("value \(key)", 1)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !started.isRaised {
            try #require(ContinuousClock.now < deadline, "the first key was never made")
            sched_yield()
        }
        return gate
    }

    @Test func aValueIsHandedOutOnceAtItsVersion() throws {
        let ahead = ReadAhead<Int, String>(lifetime: 60), log = Log()
        ahead.schedule([1, 2, 3], make: Self.maker(log, version: 7))
        try Self.waitUntilMade(log, count: 3)
        #expect(Set(log.all) == [1, 2, 3])
        #expect(ahead.take(4, version: 7) == nil)
        #expect(ahead.take(1, version: 8) == nil, "made before an update, given after it")
        #expect(ahead.take(1, version: 7) == nil, "taken once already")
        #expect(ahead.take(2, version: 7) == "value 2")
        #expect(ahead.take(2, version: 7) == nil)
    }

    @Test func aStaleValueIsNotHandedOut() throws {
        let ahead = ReadAhead<Int, String>(lifetime: 0), log = Log()
        ahead.schedule([1], make: Self.maker(log))
        try Self.waitUntilMade(log, count: 1)
        #expect(ahead.take(1, version: 1) == nil)
    }

    @Test func theKeysScheduledLastAreMadeFirstInTheirOrder() throws {
        let ahead = ReadAhead<Int, String>(lifetime: 60), log = Log()
        // The first key holds the thread until the next batches are scheduled.
        let gate = try Self.heldKey(0, ahead, log)
        ahead.schedule([1, 2], make: Self.maker(log))
        ahead.schedule([3, 4], make: Self.maker(log))
        gate.raise()
        try Self.waitUntilMade(log, count: 5)
        #expect(log.all == [0, 3, 4, 1, 2])
    }

    @Test func atMostCapacityKeysWait() throws {
        let ahead = ReadAhead<Int, String>(capacity: 2, lifetime: 60), log = Log()
        // The first key holds the thread until the next batches are scheduled.
        let gate = try Self.heldKey(0, ahead, log)
        ahead.schedule([1, 2, 3, 4], make: Self.maker(log))
        gate.raise()
        try Self.waitUntilMade(log, count: 3)
        // The oldest waiting keys were dropped; nothing more comes.
        #expect(log.all == [0, 1, 2])
        #expect(ahead.take(3, version: 1) == nil)
    }
}
