import Fixtures
import Foundation
import SystemCalls
import Testing

/// The fanotify wrapper on a real filesystem mark (the tests run as root), and its parser on what
/// the kernel wrote, cut and corrupted.
@Suite struct FanotifyTests {
    /// Events in a fresh directory on the filesystem of /tmp, read until `until` holds (other
    /// processes write there too: their events are read and ignored).
    private func events(in directory: String, doing change: () -> Void, until: ([FanotifyEvent]) -> Bool) throws -> (events: [FanotifyEvent], raw: [UInt8]) {
        let fanotify = try Fanotify()
        try fanotify.markFilesystem(of: FilePath(directory))
        change()
        var collected: [FanotifyEvent] = []
        var raw: [UInt8] = []
        let deadline = Date().addingTimeInterval(30)
        while !until(collected) && Date() < deadline {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let count = buffer.withUnsafeMutableBytes { read(fanotify.descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                raw += buffer[0..<count]
                collected += buffer.withUnsafeBytes { Fanotify.parse(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            } else {
                usleep(5_000)
            }
        }
        return (collected, raw)
    }

    @Test func reportsTheDirectoryHandleAndTheName() throws {
        let directory = NSTemporaryDirectory() + "fanotify-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/b", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = try DirectoryHandle.of(descriptor: nil, path: FilePath(directory + "/a"))
        let b = try DirectoryHandle.of(descriptor: nil, path: FilePath(directory + "/b"))
        #expect(a != b)
        #expect(try DirectoryHandle.of(descriptor: Descriptor.open(FilePath(directory + "/a"), flags: O_RDONLY | O_DIRECTORY), path: "") == a)
        let (events, raw) = try events(in: directory, doing: {
            close(open(directory + "/a/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))
            _ = rename(directory + "/a/file", directory + "/b/moved")
        }, until: { $0.contains { $0.mask.contains(.rename) && $0.newName == "moved" } })
        let created = events.first { $0.directory == a && $0.name == "file" && $0.mask.contains(.create) }
        #expect(created != nil)
        let renamed = try #require(events.first { $0.mask.contains(.rename) && $0.newName == "moved" })
        #expect(renamed.directory == a && renamed.name == "file")
        #expect(renamed.newDirectory == b && renamed.newName == "moved")

        // Cut anywhere, the buffer yields the whole events before the cut and nothing made up.
        let whole = raw.withUnsafeBytes { Fanotify.parse($0) }
        #expect(whole == events)
        for cut in 0..<raw.count {
            let parsed = raw.withUnsafeBytes { Fanotify.parse(UnsafeRawBufferPointer(rebasing: $0[0..<cut])) }
            #expect(parsed.count <= whole.count && Array(whole.prefix(parsed.count)) == parsed)
        }
    }

    /// The seed parses to what it was made of; 6,000 mutations of it (header words broken, bytes
    /// flipped, inserted and cut, spliced with itself) parse without a fault, each event of at
    /// least a header's bytes. `bundlefs-fuzz` runs the same for as long as asked.
    @Test func mutatedBuffersParseWithoutAFault() {
        let seed = FanotifySeeds.buffer
        let parsed = seed.withUnsafeBytes { Fanotify.parse($0) }
        #expect(parsed.count == 4)
        #expect(parsed.first?.mask == .create && parsed.first?.name == "file" && parsed.first?.directory?.fsid == 0x1234_5678_9ABC_DEF0)
        if parsed.count == 4 {
            #expect(parsed[1].mask.contains(.rename) && parsed[1].name == "from" && parsed[1].newName == "to")
            #expect(parsed[1].directory != nil && parsed[1].directory != parsed[1].newDirectory)
            #expect(parsed[2].directory == parsed[1].newDirectory && parsed[2].name == nil)
            #expect(parsed[3].mask == .queueOverflow && parsed[3].directory == nil)
        }
        var mutator = Mutator(seed: 41)
        for iteration in 0..<6_000 {
            let input = iteration % 2 == 0 ? mutator.mutateWords(seed, within: seed.count) : mutator.mutate(seed, spliceWith: seed)
            let events = input.withUnsafeBytes { Fanotify.parse($0) }
            #expect(events.count <= input.count / 24, "input \(iteration)")
        }
    }

    @Test func malformedBuffersEndTheParse() {
        func event(length: UInt32, metadataLength: UInt16, records: [UInt8] = []) -> [UInt8] {
            var bytes = withUnsafeBytes(of: length.littleEndian) { Array($0) } + [3, 0] + withUnsafeBytes(of: metadataLength.littleEndian) { Array($0) }
            bytes += withUnsafeBytes(of: UInt64(0x100).littleEndian) { Array($0) } + [UInt8](repeating: 0xFF, count: 4) + [0, 0, 0, 0]
            return bytes + records
        }
        let good = event(length: 24, metadataLength: 24)
        #expect(good.withUnsafeBytes { Fanotify.parse($0) } == [FanotifyEvent(mask: .create)])
        // A length shorter than the header, longer than the buffer, a metadata length past the event.
        for bad in [event(length: 4, metadataLength: 24), event(length: 4096, metadataLength: 24), event(length: 24, metadataLength: 40), event(length: 0, metadataLength: 0)] {
            #expect((good + bad).withUnsafeBytes { Fanotify.parse($0) } == [FanotifyEvent(mask: .create)])
        }
        // A handle record whose handle runs past it, and one shorter than its header: the event
        // stands, without a directory.
        let overlong: [UInt8] = [2, 0, 24, 0] + [UInt8](repeating: 0, count: 8) + [200, 0, 0, 0] + [1, 0, 0, 0] + [0, 0, 0, 0]
        let short: [UInt8] = [2, 0, 2, 0]
        for record in [overlong, short] {
            let parsed = event(length: UInt32(24 + record.count), metadataLength: 24, records: record).withUnsafeBytes { Fanotify.parse($0) }
            #expect(parsed == [FanotifyEvent(mask: .create)])
        }
    }
}
