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

    private struct State {
        var listings: [Key: (listing: DirectoryListing, lastUse: UInt64)] = [:]
        var entries = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    let entryLimit: Int

    init(entryLimit: Int) { self.entryLimit = entryLimit }

    func listing(_ key: Key) -> DirectoryListing? {
        state.withLock { state in
            guard let cached = state.listings[key] else { return nil }
            state.clock += 1
            state.listings[key]?.lastUse = state.clock
            return cached.listing
        }
    }

    func store(_ listing: DirectoryListing, for key: Key) {
        state.withLock { state in
            state.clock += 1
            if let old = state.listings.updateValue((listing, state.clock), forKey: key) { state.entries -= old.listing.entries.count }
            state.entries += listing.entries.count
            guard state.entries > entryLimit, state.listings.count > 1 else { return }
            // Evict the least recently used half at once, so eviction stays rare.
            let byAge = state.listings.sorted { $0.value.lastUse < $1.value.lastUse }
            for (oldKey, value) in byAge where oldKey != key && state.entries > entryLimit / 2 {
                state.listings[oldKey] = nil
                state.entries -= value.listing.entries.count
            }
        }
    }

    func invalidate(_ path: FilePath) {
        state.withLock { state in
            for mode in [DirectoryListing.Mode.view, .raw] {
                if let old = state.listings.removeValue(forKey: Key(path: path, mode: mode)) { state.entries -= old.listing.entries.count }
            }
        }
    }

    /// Forgets listings of `path` and everything under it.
    func invalidate(subtree path: FilePath) {
        state.withLock { state in
            for key in state.listings.keys where key.path.isWithin(path) {
                state.entries -= state.listings.removeValue(forKey: key)?.listing.entries.count ?? 0
            }
        }
    }

    func removeAll() { state.withLock { $0 = State() } }
}
