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
        var kind: String
        var version: String?
        var shortVersion: String?
        /// Not yet made safe for listing (see `DisplayNames.sanitized`).
        var displayName: String
        var finderFlags: UInt16?

        /// Whether `.bundlefs/by-path` shows it: every bundle, and every package (a package listed
        /// under its own real name hides its real directory in the main tree: SPEC.md).
        var hasView: Bool { isBundle || isPackage }

        /// Whether the view would list it the same way.
        func presentsLike(_ other: Entry?) -> Bool {
            guard let other else { return false }
            return isPackage == other.isPackage && isBundle == other.isBundle && displayName == other.displayName
                && finderFlags == other.finderFlags && identifier == other.identifier && version == other.version && kind == other.kind
        }
    }

    private struct State {
        var byPath: [FilePath: Entry] = [:]
        var byIdentifier: [String: Set<FilePath>] = [:]
    }

    private let state = Mutex(State())
    let languages: [LanguageTag]

    init(languages: [LanguageTag]) { self.languages = languages }

    /// Replaces everything with these records.
    /// Replaces everything with these entries.
    func load(entries: [Entry]) {
        state.withLock { state in
            state = State()
            for entry in entries { Self.insert(entry, into: &state) }
        }
    }

    func entry(for record: BundleRecord) -> Entry {
        Entry(path: record.path, isPackage: record.isPackage, isBundle: record.isBundle, identifier: record.identifier,
              kind: record.kind, version: record.version, shortVersion: record.shortVersion,
              displayName: record.displayName(for: languages), finderFlags: record.finderFlags)
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
            for key in state.byPath.keys where key.isWithin(path) { Self.remove(key, from: &state) }
        }
    }

    /// Moves everything at or under `from` to the same place under `to`.
    func renameSubtree(from: FilePath, to: FilePath) {
        state.withLock { state in
            let moved = state.byPath.values.filter { $0.path.isWithin(from) }
            for entry in moved { Self.remove(entry.path, from: &state) }
            for var entry in moved {
                entry.path = entry.path.moved(from: from, to: to) ?? entry.path
                Self.insert(entry, into: &state)
            }
        }
    }

    func entry(at path: FilePath) -> Entry? { state.withLock { $0.byPath[path] } }

    /// The bundle `by-id` shows for an identifier: the highest CFBundleVersion, then the highest
    /// short version, then the first path in byte order.
    func bundle(forIdentifier identifier: String) -> Entry? {
        state.withLock { state in
            guard let paths = state.byIdentifier[identifier] else { return nil }
            return paths.compactMap { state.byPath[$0] }.filter(\.isBundle).max { a, b in
                let versions = BundleVersion.compare(a.version ?? "", b.version ?? "")
                if versions != .orderedSame { return versions == .orderedAscending }
                let short = BundleVersion.compare(a.shortVersion ?? "", b.shortVersion ?? "")
                if short != .orderedSame { return short == .orderedAscending }
                return b.path < a.path
            }
        }
    }

    /// Identifiers that can name a directory (valid ones: no `/`, not empty).
    func identifiers() -> [String] {
        state.withLock { state in
            state.byIdentifier.keys.filter { identifier in
                InfoDictionary.identifierProblem(identifier) == nil
                    && state.byIdentifier[identifier]!.contains { state.byPath[$0]?.isBundle == true }
            }.sorted()
        }
    }

    /// The paths of bundles and packages with a view, at or under a directory.
    func viewPaths(under path: FilePath) -> [FilePath] {
        state.withLock { state in state.byPath.values.filter { $0.hasView && $0.path.isWithin(path) }.map(\.path) }
    }

    private static func insert(_ entry: Entry, into state: inout State) {
        state.byPath[entry.path] = entry
        if let identifier = entry.identifier { state.byIdentifier[identifier, default: []].insert(entry.path) }
    }

    private static func remove(_ path: FilePath, from state: inout State) {
        guard let old = state.byPath.removeValue(forKey: path) else { return }
        if let identifier = old.identifier {
            state.byIdentifier[identifier]?.remove(path)
            if state.byIdentifier[identifier]?.isEmpty == true { state.byIdentifier[identifier] = nil }
        }
    }
}
