import BundleModel
import Codecs

/// One claim target's handlers as one blob (`launch_lists.entries`, schema v16), in the answer's
/// order (`HandlerOrderKey`: rank, newest version, path by its bytes), then role. An answer reads a
/// few blobs and merges them (`ClaimMerge`) instead of stepping a row per claim. Entries are
/// packed: a path shares its leading bytes with the path before it (within a rank and version,
/// entries come in path order, so most of the path is shared), integers are LEB128.
///
/// After a format byte (1), each entry: rank order (1 byte), role code (1 byte, `roleCodes`),
/// bundle id, version key (length, bytes), path (bytes shared with the previous path, then the
/// rest's length and bytes), identifier and version (each length + 1, or 0 for none, then bytes).
enum LaunchListCoding {
    static let format: UInt8 = 1

    /// Roles in their names' byte order, the order of v13's key, so that answers break ties as they did.
    static let roleCodes: [String] = ["Editor", "None", "Shell", "Viewer"]

    static func roleCode(_ name: String) -> UInt8? { roleCodes.firstIndex(of: name).map(UInt8.init) }

    /// An entry's place in its list: negative when `a` comes first. Rule 30's key decides
    /// (`HandlerOrderKey`); an application's entries in one list, which tie on it, by role.
    static func compareKeys(_ a: EntryKey, _ b: EntryKey) -> Int {
        let order = HandlerOrderKey.compare(a.key, b.key)
        return order != 0 ? order : Int(a.role) - Int(b.role)
    }

    /// What orders an entry, over bytes someone else owns.
    struct EntryKey {
        var key: HandlerOrderKey
        var role: UInt8

        /// A list's entries share their target, so its class and steps: the rank's order (the
        /// stored byte, one this version does not know last) is the claim's part of the key.
        init(order: UInt8, versionKey: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer, role: UInt8) {
            key = HandlerOrderKey(claim: Int(order), version: versionKey, path: path)
            self.role = role
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String { "a claim list the catalogue cannot read (written by another version?)" }
    }
}

/// Reads a list's entries forward, from a blob in memory or through a window over one that is
/// filled as the reader moves (`fill`: SQLite's incremental blob reads), so that an answer that
/// stops early (the default application) reads the list's first pages only, and none reads a whole
/// list into one allocation. Every length is checked: a damaged list throws `Malformed`, never
/// reads past its end. Its state is read per entry in an answer's merge: one reader is used by
/// one thread at a time, so Swift's dynamic exclusivity checks (a tenth of an answer) are off.
final class LaunchListReader {
    /// Copies `buffer.count` bytes of the blob, from `offset`, into `buffer`.
    typealias Fill = (_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) throws -> Void

    /// The bytes of the blob from `windowStart` on that are at hand.
    @exclusivity(unchecked) private var window: UnsafeRawBufferPointer
    @exclusivity(unchecked) private var windowStart = 0
    let total: Int
    private let fill: Fill?
    /// The window's own storage, when filled.
    @exclusivity(unchecked) private var storage: UnsafeMutableRawBufferPointer?
    @exclusivity(unchecked) private var offset = 1
    @exclusivity(unchecked) private(set) var order: UInt8 = 0
    @exclusivity(unchecked) private(set) var role: UInt8 = 0
    @exclusivity(unchecked) private(set) var bundleID: Int64 = 0
    @exclusivity(unchecked) private(set) var versionKey = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) private(set) var identifier: UnsafeRawBufferPointer?
    @exclusivity(unchecked) private(set) var version: UnsafeRawBufferPointer?
    /// The current path, rebuilt from the shared bytes of the one before, in storage of our own.
    @exclusivity(unchecked) private var pathStorage: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var pathCount = 0

    /// A blob in memory, valid while the reader is used.
    init(_ bytes: UnsafeRawBufferPointer) throws(LaunchListCoding.Malformed) {
        guard bytes.first == LaunchListCoding.format else { throw LaunchListCoding.Malformed() }
        window = bytes
        total = bytes.count
        fill = nil
        pathStorage = .allocate(byteCount: 256, alignment: 1)
    }

    /// A blob of `total` bytes read through `fill`, `first` bytes at first, more as needed.
    init(total: Int, first: Int = 16 << 10, fill: @escaping Fill) throws {
        guard total > 0 else { throw LaunchListCoding.Malformed() }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: min(total, first), alignment: 16)
        self.storage = storage
        self.total = total
        self.fill = fill
        pathStorage = .allocate(byteCount: 256, alignment: 1)
        try fill(storage, 0)
        window = UnsafeRawBufferPointer(storage)
        guard window.first == LaunchListCoding.format else { throw LaunchListCoding.Malformed() }
    }

    deinit {
        pathStorage.deallocate()
        storage?.deallocate()
    }

    var path: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: pathStorage[..<pathCount]) }

    var key: LaunchListCoding.EntryKey { LaunchListCoding.EntryKey(order: order, versionKey: versionKey, path: path, role: role) }

    /// Thrown inside `parse` when the window ends before the entry does.
    private struct Short: Error {}

    /// Moves to the next entry; false at the end.
    func next() throws -> Bool {
        guard windowStart + offset < total else { return false }
        while true {
            do {
                try parse()
                return true
            } catch is Short {
                try refill()
            }
        }
    }

    /// Reads the entry at `offset`, changing nothing unless it is whole in the window.
    private func parse() throws {
        var bytes = Bytes(window: window, at: offset, left: total - windowStart)
        let order = try bytes.byte(), role = try bytes.byte()
        let bundleID = Int64(clamping: try bytes.varint())
        let versionKey = try bytes.slice(try bytes.varint())
        let shared = try bytes.varint()
        guard shared <= pathCount else { throw LaunchListCoding.Malformed() }
        let rest = try bytes.slice(try bytes.varint())
        let identifier = try bytes.optionalSlice(), version = try bytes.optionalSlice()
        (self.order, self.role, self.bundleID, self.versionKey, self.identifier, self.version) = (order, role, bundleID, versionKey, identifier, version)
        if shared + rest.count > pathStorage.count {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(shared + rest.count, pathStorage.count * 2), alignment: 1)
            larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: pathStorage[..<shared]))
            pathStorage.deallocate()
            pathStorage = larger
        }
        if let base = rest.baseAddress { (pathStorage.baseAddress! + shared).copyMemory(from: base, byteCount: rest.count) }
        pathCount = shared + rest.count
        offset = bytes.at
    }

    /// An entry's bytes in the window, read forward: `Short` where the window ends first,
    /// `Malformed` where the blob does.
    private struct Bytes {
        let window: UnsafeRawBufferPointer
        var at: Int
        /// The blob's bytes from the window's start to its end.
        let left: Int

        mutating func byte() throws -> UInt8 {
            guard at < window.count else { throw at < left ? Short() as any Error : LaunchListCoding.Malformed() }
            defer { at += 1 }
            return window[at]
        }

        mutating func varint() throws -> Int {
            do {
                return Int(clamping: try LEB128.read(window, at: &at))
            } catch LEB128.ReadError.truncated {
                throw window.count < left ? Short() as any Error : LaunchListCoding.Malformed()
            } catch {
                throw LaunchListCoding.Malformed()
            }
        }

        mutating func slice(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count <= left - at else { throw LaunchListCoding.Malformed() }
            guard count <= window.count - at else { throw Short() }
            defer { at += count }
            return UnsafeRawBufferPointer(rebasing: window[at..<(at + count)])
        }

        mutating func optionalSlice() throws -> UnsafeRawBufferPointer? {
            let stored = try varint()
            return stored == 0 ? nil : try slice(stored - 1)
        }
    }

    /// Moves the unread bytes to the window's start and reads more after them (a larger window
    /// when one entry does not fit); a blob that ends inside an entry is malformed.
    private func refill() throws {
        guard let fill, var storage, windowStart + window.count < total else { throw LaunchListCoding.Malformed() }
        let kept = window.count - offset
        if offset == 0 || storage.count < 64 << 10 {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(total - windowStart - offset, max(64 << 10, storage.count * 2)), alignment: 16)
            larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: window[offset...]))
            storage.deallocate()
            storage = larger
            self.storage = larger
        } else if kept > 0, let base = storage.baseAddress {
            base.copyMemory(from: window.baseAddress! + offset, byteCount: kept)
        }
        windowStart += offset
        offset = 0
        let count = min(storage.count, total - windowStart)
        try fill(UnsafeMutableRawBufferPointer(rebasing: storage[kept..<count]), windowStart + kept)
        window = UnsafeRawBufferPointer(rebasing: storage[..<count])
    }
}

/// Writes a list's entries, in order (the caller's duty: `LaunchLists` merges in key order).
struct LaunchListWriter {
    private(set) var bytes: [UInt8] = [LaunchListCoding.format]
    private var previousPath: [UInt8] = []
    private(set) var count = 0

    mutating func append(order: UInt8, role: UInt8, bundleID: Int64, versionKey: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer,
                         identifier: UnsafeRawBufferPointer?, version: UnsafeRawBufferPointer?) {
        bytes.append(order)
        bytes.append(role)
        varint(UInt64(bitPattern: bundleID))
        varint(UInt64(versionKey.count))
        bytes.append(contentsOf: versionKey)
        var shared = 0
        let limit = min(previousPath.count, path.count)
        while shared < limit && previousPath[shared] == path[shared] { shared += 1 }
        varint(UInt64(shared))
        varint(UInt64(path.count - shared))
        bytes.append(contentsOf: path[shared...])
        previousPath.removeSubrange(shared...)
        previousPath.append(contentsOf: path[shared...])
        for text in [identifier, version] {
            guard let text else { bytes.append(0); continue }
            varint(UInt64(text.count) + 1)
            bytes.append(contentsOf: text)
        }
        count += 1
    }

    private mutating func varint(_ value: UInt64) { LEB128.append(value, to: &bytes) }
}
