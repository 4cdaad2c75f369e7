import BundleModel
import Catalogue
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
        /// The icon as PNG, converted on first use; `.some(nil)` when it could not be.
        var iconBytes: [UInt8]??
        /// What the icon file looked like when converted: the file is not among the record's
        /// stamps (the index never opens it), so an edit in place is noticed here.
        var iconStamp: FileStamp?
        var lastUse: UInt64
    }

    private struct State {
        var records: [FilePath: Cached] = [:]
        var clock: UInt64 = 0
        /// Bytes held by converted icons, which can be a megabyte each.
        var iconBytes = 0

        mutating func remove(_ key: FilePath) {
            dropIcon(key)
            records[key] = nil
        }

        /// Forgets a record's converted icon, and the bytes it held.
        mutating func dropIcon(_ key: FilePath) {
            if case let .some(held?) = records[key]?.iconBytes { iconBytes -= held.count }
            records[key]?.iconBytes = nil
        }
    }

    /// Converted icons kept at most: beyond it, the least recently used are dropped (and
    /// converted again when read again).
    static let iconByteLimit = 64 << 20

    private let state = Mutex(State())
    let catalogue: Catalogue
    let limit: Int

    init(catalogue: Catalogue, limit: Int = 256) {
        self.catalogue = catalogue
        self.limit = limit
    }

    /// The catalogued record of the bundle at `path`, or nil when there is none (or the
    /// catalogue cannot be read just now).
    func record(at path: FilePath) -> BundleRecord? {
        if let cached = state.withLock({ state -> BundleRecord? in
            state.clock += 1
            state.records[path]?.lastUse = state.clock
            return state.records[path]?.record
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
            state.clock += 1
            state.remove(record.path)
            state.records[record.path] = Cached(record: record, lastUse: state.clock)
            guard state.records.count > limit else { return }
            for (key, _) in state.records.sorted(by: { $0.value.lastUse < $1.value.lastUse }).prefix(state.records.count - limit / 2) {
                state.remove(key)
            }
        }
    }

    /// The effective Info.plist of the bundle at `path`, rendered once per record.
    func infoBytes(at path: FilePath, render: (BundleRecord) -> [UInt8]) -> [UInt8]? {
        if let bytes = state.withLock({ $0.records[path]?.infoBytes }) { return bytes }
        guard let record = record(at: path) else { return nil }
        let bytes = render(record)
        state.withLock { state in
            if state.records[path]?.record == record { state.records[path]?.infoBytes = bytes }
        }
        return bytes
    }

    /// The icon of the bundle at `path` as PNG, converted once per record and icon file version:
    /// `stamp` gives the icon file's current stamp, `convert` the PNG.
    func iconBytes(at path: FilePath, stamp: (BundleRecord) -> FileStamp?, convert: (BundleRecord) -> [UInt8]?) -> [UInt8]? {
        guard let record = record(at: path) else { return nil }
        let current = stamp(record)
        if let bytes = state.withLock({ state -> [UInt8]?? in
            guard let cached = state.records[path], cached.iconStamp == current else { return nil }
            return cached.iconBytes
        }) {
            return bytes
        }
        let bytes = convert(record)
        state.withLock { state in
            guard state.records[path]?.record == record else { return }
            state.dropIcon(path)
            state.records[path]?.iconBytes = .some(bytes)
            state.records[path]?.iconStamp = current
            state.iconBytes += bytes?.count ?? 0
            guard state.iconBytes > Self.iconByteLimit else { return }
            for (key, _) in state.records.sorted(by: { $0.value.lastUse < $1.value.lastUse })
            where key != path && state.iconBytes > Self.iconByteLimit / 2 {
                state.dropIcon(key)
            }
        }
        return bytes
    }

    func invalidate(_ path: FilePath) { state.withLock { $0.remove(path) } }

    func invalidate(subtree path: FilePath) {
        state.withLock { state in
            for key in state.records.keys where key.isWithin(path) { state.remove(key) }
        }
    }

    func removeAll() {
        state.withLock { state in
            state.records.removeAll()
            state.iconBytes = 0
        }
    }
}
