import SystemCalls

/// The directories a scan visited with the watch each got (or none), in the order registered:
/// paths packed in byte chunks, since a scan of 250,000 directories registers every one before
/// the watcher takes them (as Strings, 45 MB; packed, about 15). Fixed chunks rather than one
/// growing array: an array grown by doubling held its old and new buffers at once at each growth,
/// 25 MB at the peak of a watcher's start at a million entries (heaptrack).
struct Registrations: Sequence {
    static let chunkSize = 1 << 20
    private var chunks: [[UInt8]] = []
    /// Each path's chunk and where it ends in it, and its watch.
    private var entries: [(chunk: UInt32, end: UInt32, watch: Int32)] = []

    static let unwatched: Int32 = -1

    mutating func append(_ path: FilePath, watch: Int32?) {
        let bytes = path.string.utf8
        if chunks.isEmpty || chunks[chunks.count - 1].count + bytes.count > Self.chunkSize {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Swift.max(Self.chunkSize, bytes.count))
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(contentsOf: bytes)
        entries.append((UInt32(chunks.count - 1), UInt32(chunks[chunks.count - 1].count), watch ?? Self.unwatched))
    }

    var count: Int { entries.count }

    func makeIterator() -> Iterator { Iterator(registrations: self) }

    struct Iterator: IteratorProtocol {
        let registrations: Registrations
        var index = 0
        var start = 0

        mutating func next() -> (path: FilePath, watch: Int32?)? {
            guard index < registrations.entries.count else { return nil }
            let entry = registrations.entries[index]
            if index > 0, registrations.entries[index - 1].chunk != entry.chunk { start = 0 }
            let path = FilePath(String(decoding: registrations.chunks[Int(entry.chunk)][start..<Int(entry.end)], as: UTF8.self))
            index += 1
            start = Int(entry.end)
            return (path, entry.watch == Registrations.unwatched ? nil : entry.watch)
        }
    }
}
