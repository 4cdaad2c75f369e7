import Synchronization

/// Connections that read a published catalogue, kept between requests (`serve-web --database`):
/// connecting, authenticating and starting a backend cost several milliseconds, more than a search
/// answered by an index. At most `limit` are kept idle (as many as the threads that ask); one more
/// asker opens its own. A connection that failed is dropped, and the next read connects anew, so a
/// database restarted meanwhile costs one read at most: a kept connection found dead is retried
/// once on a new one.
public final class PublishedReaders: Sendable {
    private let url: String
    private let limit: Int
    private let idle = Mutex<[Reader]>([])

    /// A connection is used by one thread at a time: the one that took it out of `idle`.
    private final class Reader: @unchecked Sendable {
        let catalogue: PublishedCatalogue
        init(_ catalogue: PublishedCatalogue) { self.catalogue = catalogue }
    }

    public init(url: String, keeping limit: Int) {
        self.url = url
        self.limit = max(1, limit)
    }

    /// Runs `body` with a connection of the pool, or a new one when none is idle.
    public func reading<T>(_ body: (PublishedCatalogue) throws -> T) throws -> T {
        if let kept = idle.withLock({ $0.popLast() }) {
            do {
                return try run(kept) { catalogue in
                    try catalogue.readSchemaVersionAgain()
                    return try body(catalogue)
                }
            } catch where !kept.catalogue.isConnected {
                // The server went away since (a restart, a dropped link): the others kept went with it.
                idle.withLock { $0.removeAll() }
            }
        }
        let fresh = try PublishedCatalogue(readingFrom: url)
        // A page's queries read a few index ranges: compiling them (JIT, for a plan the planner
        // thinks costly, as a count over many rows) takes longer than running them.
        try fresh.setJIT(false)
        return try run(Reader(fresh), body)
    }

    private func run<T>(_ reader: Reader, _ body: (PublishedCatalogue) throws -> T) throws -> T {
        defer { giveBack(reader) }
        return try body(reader.catalogue)
    }

    /// Keeps a connection that is still ready for a statement, up to the limit.
    private func giveBack(_ reader: Reader) {
        guard reader.catalogue.isUsable else { return }
        idle.withLock { kept in
            if kept.count < limit { kept.append(reader) }
        }
    }
}
