import CompactStorage
import Synchronization
import SystemCalls

/// Recently presented directories, by path and mode, so that lookups in a directory do not list
/// it again each time. Bounded by the total number of entries held; the most recent listing is
/// kept whatever its size (a directory of 100,000 entries must not be re-listed per lookup).
/// The watcher's updates invalidate what changed; see `ViewUpdater`.
final class ListingCache: Sendable {
    struct Key: Hashable, Sendable {
        var path: FilePath
        var mode: DirectoryListing.Mode
    }

    private let listings: Mutex<BoundedCache<Key, DirectoryListing>>

    init(entryLimit: Int) { listings = Mutex(BoundedCache(limit: entryLimit, keeping: entryLimit / 2)) }

    func listing(_ key: Key) -> DirectoryListing? { listings.withLock { $0.value(for: key) } }

    func store(_ listing: DirectoryListing, for key: Key) {
        listings.withLock { _ = $0.store(listing, for: key, weight: listing.entries.count) }
    }

    func invalidate(_ path: FilePath) {
        listings.withLock { listings in
            for mode in [DirectoryListing.Mode.view, .raw] { listings.remove(Key(path: path, mode: mode)) }
        }
    }

    /// Forgets listings of `path` and everything under it.
    func invalidate(subtree path: FilePath) { listings.withLock { _ = $0.removeAll { $0.path.isWithin(path) } } }

    func removeAll() { listings.withLock { $0.removeAll() } }
}
