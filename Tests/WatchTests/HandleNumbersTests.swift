@testable import Watcher
import SystemCalls
import Testing

/// fanotify's table of directory handles answers as a dictionary would, through insertions,
/// removals and reuse, for handles of every length a filesystem gives (ext4's 8 bytes, btrfs's
/// and xfs's longer ones, tmpfs's 12) on several filesystems at once.
@Suite struct HandleNumbersTests {
    /// A handle on filesystem `fsid`, of `length` bytes spelling `value` (repeated past 8 bytes).
    static func handle(_ value: UInt64, fsid: UInt64, length: Int, type: Int32 = 1) -> DirectoryHandle {
        var bytes = [UInt8](repeating: 0, count: length)
        for index in 0..<length { bytes[index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index % 8))) ^ UInt8(index / 8) }
        return bytes.withUnsafeBytes { DirectoryHandle(fsid: fsid, type: type, bytes: $0)! }
    }

    @Test func answersAsADictionaryThroughInsertionsRemovalsAndReuse() {
        var table = HandleNumbers()
        var model: [DirectoryHandle: Int] = [:]
        var held = Set<Int>()
        var generator = SystemRandomNumberGenerator()
        let lengths = [8, 12, 20, 32, 0]
        for step in 0..<60_000 {
            let handle = Self.handle(UInt64.random(in: 0..<20_000, using: &generator), fsid: UInt64(step % 3), length: lengths[step % lengths.count],
                                     type: Int32(step % 2))
            if Bool.random(using: &generator) || model.isEmpty {
                let index = table.insert(handle)
                if let known = model[handle] {
                    #expect(index == known, "a held handle keeps its number")
                } else {
                    let fresh = held.insert(index).inserted
                    #expect(fresh, "a new handle gets a number nobody holds")
                    model[handle] = index
                }
            } else {
                let (victim, index) = model.randomElement(using: &generator)!
                let removed = table.remove(index: index), again = table.remove(index: index)
                #expect(removed && !again, "a held number is removed once")
                model[victim] = nil
                held.remove(index)
            }
            #expect(table.count == model.count)
        }
        for (handle, index) in model { #expect(table.index(of: handle) == index) }
        // Absent: unknown bytes, an unknown filesystem, a known one with another type or length.
        #expect(table.index(of: Self.handle(1 << 40, fsid: 0, length: 8)) == nil)
        #expect(table.index(of: Self.handle(5, fsid: 99, length: 8)) == nil)
        #expect(table.index(of: Self.handle(5, fsid: 0, length: 9)) == nil)
    }

    @Test func vacantNumbersAreReusedAndRemovalsDoNotGrowTheTable() {
        var table = HandleNumbers()
        let first = (0..<1_000).map { table.insert(Self.handle($0, fsid: 7, length: 8)) }
        #expect(first == Array(0..<1_000))
        // Churn: a directory made and removed a million times over keeps the numbers below 1,001.
        for round in 0..<100_000 {
            let index = table.insert(Self.handle(10_000 + UInt64(round), fsid: 7, length: 8))
            #expect(index <= 1_000)
            table.remove(index: index)
        }
        for removed in stride(from: 0, to: 1_000, by: 2) { table.remove(index: removed) }
        let reused = (0..<500).map { table.insert(Self.handle(50_000 + $0, fsid: 7, length: 8)) }
        #expect(Set(reused) == Set(stride(from: 0, to: 1_000, by: 2)))
        for kept in stride(from: 1, to: 1_000, by: 2) { #expect(table.index(of: Self.handle(UInt64(kept), fsid: 7, length: 8)) == kept) }
    }
}
