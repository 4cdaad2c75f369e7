import BundleModel
import Synchronization
import SystemCalls

/// What the view needs of each catalogued bundle or package to list it, computed once for the
/// mount's languages from the catalogue's records: loaded at mount time, then refreshed from the
/// catalogue for what each update names.
final class PackageIndex: Sendable {
    struct Entry: Sendable {
        var path: FilePath
        var isPackage: Bool
        var isBundle: Bool
        var identifier: String?
        var kind: BundleKind
        var version: String?
        var shortVersion: String?
        /// Not yet made safe for listing (see `DisplayNames.sanitized`).
        var displayName: String
        var finderFlags: UInt16?
        /// The archive it is inside (rule 26): `path` is then a key, not a directory.
        var archive: FilePath?
        /// Its images' UUIDs and build-ids as the catalogue keys them (`BinarySlice.uuidKey`):
        /// what an update to it changes in `by-uuid` and the symbol stores.
        var uuidKeys: [String] = []

        /// Whether `.bundlefs/by-path` shows it: every bundle, and every package (a package listed
        /// under its own real name hides its real directory in the main tree: SPEC.md); not a
        /// bundle inside an archive, which has no directory.
        var hasView: Bool { (isBundle || isPackage) && archive == nil }

        /// Whether the view would list it the same way.
        func presentsLike(_ other: Entry?) -> Bool {
            guard let other else { return false }
            return isPackage == other.isPackage && isBundle == other.isBundle && displayName == other.displayName
                && finderFlags == other.finderFlags && identifier == other.identifier && version == other.version && kind == other.kind
                && archive == other.archive
        }
    }

    /// Entries in slots, found by path and by identifier through slot numbers: at 50,000 bundles a
    /// dictionary of whole entries (with room to grow) and a set per identifier cost 25 MB; this
    /// costs about half.
    private struct State {
        var slots: [Entry?] = []
        var free: [Int32] = []
        var byPath: [FilePath: Int32] = [:]
        var byIdentifier: [String: [Int32]] = [:]
        /// Bundles inside archives, by archive.
        var byArchive: [FilePath: [Int32]] = [:]

        func entry(_ path: FilePath) -> Entry? { byPath[path].flatMap { slots[Int($0)] } }
        var entries: some Sequence<Entry> { slots.lazy.compactMap { $0 } }
    }

    private let state = Mutex(State())
    let languages: [LanguageTag]

    init(languages: [LanguageTag]) { self.languages = languages }

    /// Replaces everything with these entries.
    func load(entries: [Entry]) {
        state.withLock { state in
            state = State()
            state.slots.reserveCapacity(entries.count)
            state.byPath.reserveCapacity(entries.count)
            for entry in entries { Self.insert(entry, into: &state) }
        }
    }

    func entry(for record: BundleRecord) -> Entry {
        Entry(path: record.key, isPackage: record.isPackage, isBundle: record.isBundle, identifier: record.identifier,
              kind: record.kind, version: record.version, shortVersion: record.shortVersion,
              displayName: record.displayName(for: languages), finderFlags: record.finderFlags, archive: record.archive,
              uuidKeys: Array(Set(record.binaries.compactMap(\.uuidKey))))
    }

    /// Replaces the bundles of the archives in `directory` (those read again, those gone).
    func replaceArchived(in directory: FilePath, with entries: [Entry]) {
        state.withLock { state in
            for archive in state.byArchive.keys where archive.parent == directory {
                for slot in state.byArchive[archive] ?? [] {
                    if let path = state.slots[Int(slot)]?.path { Self.remove(path, from: &state) }
                }
            }
            for entry in entries { Self.insert(entry, into: &state) }
        }
    }

    /// The bundles inside an archive.
    func archived(in archive: FilePath) -> [Entry] {
        state.withLock { state in (state.byArchive[archive] ?? []).compactMap { state.slots[Int($0)] } }
    }

    /// The bundles of the archives in `directory`.
    func archived(inDirectory directory: FilePath) -> [Entry] {
        state.withLock { state in
            state.byArchive.filter { $0.key.parent == directory }.values.flatMap { $0 }.compactMap { state.slots[Int($0)] }
        }
    }

    /// Every entry at or under any of `paths`, in one pass (each entry's ancestors are looked up).
    func entries(withinAny paths: Set<FilePath>) -> [Entry] {
        guard !paths.isEmpty else { return [] }
        return state.withLock { state in
            state.entries.filter { entry in
                var current = entry.path
                while true {
                    if paths.contains(current) { return true }
                    let parent = current.parent
                    if parent == current || parent.isEmpty { return false }
                    current = parent
                }
            }
        }
    }

    /// Sets what is at `path`: the record read now, or nothing.
    func set(_ path: FilePath, to record: BundleRecord?) {
        let entry = record.map(entry(for:))
        state.withLock { state in
            Self.remove(path, from: &state)
            if let entry { Self.insert(entry, into: &state) }
        }
    }

    /// Forgets everything at or under `path`.
    func removeSubtree(_ path: FilePath) {
        state.withLock { state in
            for key in state.byPath.keys.filter({ $0.isWithin(path) }) { Self.remove(key, from: &state) }
        }
    }

    /// Moves everything at or under `from` to the same place under `to`.
    func renameSubtree(from: FilePath, to: FilePath) {
        state.withLock { state in
            let moved = state.entries.filter { $0.path.isWithin(from) }
            for entry in moved { Self.remove(entry.path, from: &state) }
            for var entry in moved {
                entry.path = entry.path.moved(from: from, to: to) ?? entry.path
                Self.insert(entry, into: &state)
            }
        }
    }

    func entry(at path: FilePath) -> Entry? { state.withLock { $0.entry(path) } }

    /// The bundle `by-id` shows for an identifier: the highest CFBundleVersion, then the highest
    /// short version, then the first path in byte order.
    func bundle(forIdentifier identifier: String) -> Entry? {
        state.withLock { state in
            guard let slots = state.byIdentifier[identifier] else { return nil }
            return slots.compactMap { state.slots[Int($0)] }.filter(\.isBundle).max { a, b in
                let versions = BundleVersion.compare(a.version ?? "", b.version ?? "")
                if versions != .orderedSame { return versions == .orderedAscending }
                let short = BundleVersion.compare(a.shortVersion ?? "", b.shortVersion ?? "")
                if short != .orderedSame { return short == .orderedAscending }
                // A copy on disk shows its resources; one inside an archive only its Info.plist.
                if (a.archive == nil) != (b.archive == nil) { return a.archive != nil }
                return b.path < a.path
            }
        }
    }

    /// Identifiers that can name a directory (valid ones: no `/`, not empty), sorted.
    func identifiers() -> [String] {
        state.withLock { state in
            state.byIdentifier.keys.filter { Self.namesBundle($0, in: state) }
        }.sorted()
    }

    /// Whether a valid identifier names a bundle: what `by-id` shows, found without a pass over
    /// every identifier.
    func hasBundle(identifier: String) -> Bool { state.withLock { Self.namesBundle(identifier, in: $0) } }

    private static func namesBundle(_ identifier: String, in state: State) -> Bool {
        InfoDictionary.identifierProblem(identifier) == nil
            && state.byIdentifier[identifier]?.contains { state.slots[Int($0)]?.isBundle == true } == true
    }

    /// The paths of bundles and packages with a view, at or under a directory.
    func viewPaths(under path: FilePath) -> [FilePath] {
        state.withLock { state in state.entries.filter { $0.hasView && $0.path.isWithin(path) }.map(\.path) }
    }

    private static func insert(_ entry: Entry, into state: inout State) {
        remove(entry.path, from: &state)
        let slot: Int32
        if let reused = state.free.popLast() {
            slot = reused
            state.slots[Int(slot)] = entry
        } else {
            slot = Int32(state.slots.count)
            state.slots.append(entry)
        }
        state.byPath[entry.path] = slot
        if let identifier = entry.identifier { state.byIdentifier[identifier, default: []].append(slot) }
        if let archive = entry.archive { state.byArchive[archive, default: []].append(slot) }
    }

    private static func remove(_ path: FilePath, from state: inout State) {
        guard let slot = state.byPath.removeValue(forKey: path), let old = state.slots[Int(slot)] else { return }
        state.slots[Int(slot)] = nil
        state.free.append(slot)
        if let identifier = old.identifier {
            state.byIdentifier[identifier]?.removeAll { $0 == slot }
            if state.byIdentifier[identifier]?.isEmpty == true { state.byIdentifier[identifier] = nil }
        }
        if let archive = old.archive {
            state.byArchive[archive]?.removeAll { $0 == slot }
            if state.byArchive[archive]?.isEmpty == true { state.byArchive[archive] = nil }
        }
    }
}
