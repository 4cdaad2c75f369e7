import BundleModel
import Catalogue
import CompactStorage
import Synchronization
import SystemCalls

/// Whole records of the bundles the `.bundlefs` views show, read from the catalogue when first
/// needed and forgotten when an update names them (or their subtree). Bounded: a bundle view is
/// looked at a few bundles at a time.
final class RecordCache: Sendable {
    private struct Cached {
        var record: BundleRecord
        /// The effective Info.plist, rendered on first use.
        var infoBytes: [UInt8]?
    }

    /// A record's icon as PNG, converted on first use; `bytes` nil when it could not be.
    private struct Icon {
        var bytes: [UInt8]?
        /// What the icon file looked like when converted: the file is not among the record's
        /// stamps (the index never opens it), so an edit in place is noticed here.
        var stamp: FileStamp?
    }

    private struct State {
        var records: BoundedCache<FilePath, Cached>
        /// By the bytes they hold, which can be a megabyte each; an icon goes with its record.
        var icons: BoundedCache<FilePath, Icon>

        mutating func remove(_ key: FilePath) {
            records.remove(key)
            icons.remove(key)
        }
    }

    /// Converted icons kept at most: beyond it, the least recently used are dropped (and
    /// converted again when read again).
    static let iconByteLimit = 64 << 20

    private let state: Mutex<State>
    let catalogue: any CatalogueReader

    init(catalogue: any CatalogueReader, limit: Int = 256) {
        self.catalogue = catalogue
        state = Mutex(State(records: BoundedCache(limit: limit, keeping: limit / 2),
                            icons: BoundedCache(limit: Self.iconByteLimit, keeping: Self.iconByteLimit / 2)))
    }

    /// The catalogued record of the bundle at `path`, or nil when there is none (or the
    /// catalogue cannot be read just now).
    func record(at path: FilePath) -> BundleRecord? {
        if let cached = state.withLock({ state -> BundleRecord? in
            // An icon is as recently used as its record.
            state.icons.touch(path)
            return state.records.value(for: path)?.record
        }) {
            return cached
        }
        guard let record = (try? catalogue.bundle(atPath: path))?.record else { return nil }
        store(record)
        return record
    }

    /// Keeps a record the catalogue does not hold yet (read during a fault), until an update
    /// names its bundle again.
    func store(_ record: BundleRecord) {
        state.withLock { state in
            state.icons.remove(record.key)
            for evicted in state.records.store(Cached(record: record), for: record.key, weight: 1) { state.icons.remove(evicted.key) }
        }
    }

    /// The effective Info.plist of the bundle at `path`, rendered once per record.
    func infoBytes(at path: FilePath, render: (BundleRecord) -> [UInt8]) -> [UInt8]? {
        if let bytes = state.withLock({ $0.records.peek(path)?.infoBytes }) { return bytes }
        guard let record = record(at: path) else { return nil }
        let bytes = render(record)
        state.withLock { state in
            state.records.update(path) { cached in
                if cached.record == record { cached.infoBytes = bytes }
            }
        }
        return bytes
    }

    /// The icon of the bundle at `path` as PNG, converted once per record and icon file version:
    /// `stamp` gives the icon file's current stamp, `convert` the PNG.
    func iconBytes(at path: FilePath, stamp: (BundleRecord) -> FileStamp?, convert: (BundleRecord) -> [UInt8]?) -> [UInt8]? {
        guard let record = record(at: path) else { return nil }
        let current = stamp(record)
        if let bytes = state.withLock({ state -> [UInt8]?? in
            guard let icon = state.icons.peek(path), icon.stamp == current else { return nil }
            return .some(icon.bytes)
        }) {
            return bytes
        }
        let bytes = convert(record)
        state.withLock { state in
            guard state.records.peek(path)?.record == record else { return }
            state.icons.store(Icon(bytes: bytes, stamp: current), for: path, weight: bytes?.count ?? 0)
        }
        return bytes
    }

    func invalidate(_ path: FilePath) { state.withLock { $0.remove(path) } }

    func invalidate(subtree path: FilePath) {
        state.withLock { state in
            for key in state.records.removeAll(where: { $0.isWithin(path) }) { state.icons.remove(key) }
        }
    }

    func removeAll() {
        state.withLock { state in
            state.records.removeAll()
            state.icons.removeAll()
        }
    }
}
