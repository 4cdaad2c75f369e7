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
    /// Listings READDIR keeps giving while the kernel is told what changed in their directory:
    /// any name the kernel forgets drops the listing it keeps, so a new listing read before the
    /// last of the old names is forgotten would show names whose old answers lookups still get.
    /// Counted, as updates to one directory may overlap.
    private let held = Mutex([FilePath: (listing: DirectoryListing?, updates: Int)]())

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

    /// Drops the listings of `path` like `invalidate`, but keeps its presented listing for
    /// READDIR until as many `release`s.
    func hold(_ path: FilePath) {
        held.withLock { held in
            if let kept = held[path] {
                held[path] = (kept.listing, kept.updates + 1)
            } else {
                held[path] = (listings.withLock { $0.value(for: Key(path: path, mode: .view)) }, 1)
            }
        }
        invalidate(path)
    }

    func release(_ path: FilePath) {
        held.withLock { held in
            guard let kept = held[path] else { return }
            held[path] = kept.updates > 1 ? (kept.listing, kept.updates - 1) : nil
        }
    }

    /// The listing READDIR gives while its directory's update is told to the kernel.
    func heldListing(_ path: FilePath) -> DirectoryListing? { held.withLock { $0[path]?.listing } }

    /// Forgets listings of `path` and everything under it.
    func invalidate(subtree path: FilePath) { listings.withLock { _ = $0.removeAll { $0.path.isWithin(path) } } }

    func removeAll() { listings.withLock { $0.removeAll() } }
}
