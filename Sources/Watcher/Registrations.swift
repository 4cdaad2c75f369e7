import SystemCalls

/// The directories a scan visited with the watch each got (or none), in the order registered:
/// paths packed in one byte array, since a scan of 250,000 directories registers every one before
/// the watcher takes them (as Strings, 45 MB; packed, about 20).
struct Registrations: Sequence {
    private var bytes: [UInt8] = []
    private var entries: [(end: UInt32, watch: Int32)] = []

    static let unwatched: Int32 = -1

    mutating func append(_ path: FilePath, watch: Int32?) {
        bytes.append(contentsOf: path.string.utf8)
        entries.append((UInt32(bytes.count), watch ?? Self.unwatched))
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
            let path = FilePath(String(decoding: registrations.bytes[start..<Int(entry.end)], as: UTF8.self))
            index += 1
            start = Int(entry.end)
            return (path, entry.watch == Registrations.unwatched ? nil : entry.watch)
        }
    }
}
