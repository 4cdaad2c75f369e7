import BundleModel
import Catalogue
import Synchronization
import SystemCalls

/// What the view needs of each catalogued bundle or package, computed once for the mount's
/// languages: loaded from the catalogue at mount time, then kept current from the watcher's records.
final class PackageIndex: Sendable {
    struct Entry: Sendable {
        var path: String
        var isPackage: Bool
        var isBundle: Bool
        var identifier: String?
        var kind: String
        var version: String?
        var shortVersion: String?
        /// Not yet made safe for listing (see `DisplayNames.sanitized`).
        var displayName: String
        var finderFlags: UInt16?
    }

    private struct State {
        var byPath: [String: Entry] = [:]
        var byIdentifier: [String: Set<String>] = [:]
    }

    private let state = Mutex(State())
    let languages: [LanguageTag]

    init(languages: [LanguageTag]) { self.languages = languages }

    /// Replaces everything with the catalogue's bundles.
    func load(_ bundles: [CataloguedBundle]) {
        let entries = bundles.map { entry(for: $0.record) }
        state.withLock { state in
            state = State()
            for entry in entries { Self.insert(entry, into: &state) }
        }
    }

    /// Every entry, for comparing before and after a reload.
    func all() -> [String: Entry] { state.withLock { $0.byPath } }

    func entry(for record: BundleRecord) -> Entry {
        Entry(path: record.path, isPackage: record.isPackage, isBundle: record.isBundle, identifier: record.identifier,
              kind: record.kind, version: record.version, shortVersion: record.shortVersion,
              displayName: record.displayName(for: languages), finderFlags: record.finderFlags)
    }

    func update(_ record: BundleRecord) {
        let entry = entry(for: record)
        state.withLock { state in
            Self.remove(record.path, from: &state)
            Self.insert(entry, into: &state)
        }
    }

    func remove(_ path: String) { state.withLock { state in Self.remove(path, from: &state) } }

    /// Forgets everything at or under `path`.
    func removeSubtree(_ path: String) {
        state.withLock { state in
            for key in state.byPath.keys where Paths.isWithin(key, path) { Self.remove(key, from: &state) }
        }
    }

    /// Moves everything at or under `from` to the same place under `to`.
    func renameSubtree(from: String, to: String) {
        state.withLock { state in
            let moved = state.byPath.values.filter { Paths.isWithin($0.path, from) }
            for entry in moved { Self.remove(entry.path, from: &state) }
            for var entry in moved {
                entry.path = to + entry.path.dropFirst(from.count)
                Self.insert(entry, into: &state)
            }
        }
    }

    func entry(at path: String) -> Entry? { state.withLock { $0.byPath[path] } }

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
                return Array(a.path.utf8).lexicographicallyPrecedes(b.path.utf8) == false
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

    /// Bundle paths at or under a directory.
    func bundlePaths(under path: String) -> [String] {
        state.withLock { state in state.byPath.values.filter { $0.isBundle && Paths.isWithin($0.path, path) }.map(\.path) }
    }

    private static func insert(_ entry: Entry, into state: inout State) {
        state.byPath[entry.path] = entry
        if let identifier = entry.identifier { state.byIdentifier[identifier, default: []].insert(entry.path) }
    }

    private static func remove(_ path: String, from state: inout State) {
        guard let old = state.byPath.removeValue(forKey: path) else { return }
        if let identifier = old.identifier {
            state.byIdentifier[identifier]?.remove(path)
            if state.byIdentifier[identifier]?.isEmpty == true { state.byIdentifier[identifier] = nil }
        }
    }
}
