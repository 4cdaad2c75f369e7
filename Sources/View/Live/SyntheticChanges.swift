import SystemCalls

/// What an update changed of what `.bundlefs` shows: the bundles it touched, as they were and as
/// they are now, with their identifiers and UUIDs. Only the synthesized nodes made from these are
/// invalidated, so a change to one bundle costs that bundle's nodes (its views, by-path's
/// directories above it, its UUIDs' directories and symbol store paths), not every node the kernel
/// holds (165,000 after an `ls -R` of the symbol stores).
struct SyntheticChanges: Sendable {
    private let root: FilePath
    private var bundlePaths = Set<FilePath>()
    private var identifiers = Set<String>()
    /// The UUIDs of the changed bundles, as they were and as they are.
    private(set) var uuidKeys = Set<String>()
    /// by-path's directories above a changed bundle, relative to the root (`.here` its top).
    private var pathPrefixes = Set<FilePath>()
    /// Every leading part of a changed key: what a symbol directory above it spells.
    private var keyPrefixes = Set<String>()

    init(root: FilePath) { self.root = root }

    var isEmpty: Bool { bundlePaths.isEmpty }

    mutating func add(_ entry: PackageIndex.Entry?) {
        guard let entry else { return }
        bundlePaths.insert(entry.path)
        if let identifier = entry.identifier { identifiers.insert(identifier) }
        if let relative = entry.path.relative(to: root) {
            var prefix = FilePath.here
            pathPrefixes.insert(prefix)
            for component in relative.components {
                prefix = prefix.appending(component)
                pathPrefixes.insert(prefix)
            }
        }
        for key in entry.uuidKeys where uuidKeys.insert(key).inserted {
            for length in 0...key.utf8.count { keyPrefixes.insert(String(key.utf8.prefix(length))!) }
        }
    }

    mutating func add(_ entries: [PackageIndex.Entry]) { for entry in entries { add(entry) } }

    /// Whether the kernel must forget what it holds of this synthesized node.
    func affects(_ kind: NodeKind, _ detail: SyntheticDetail) -> Bool {
        guard !isEmpty else { return false }
        switch detail {
        case .none:
            // `.bundlefs` itself lists the same four names whatever the catalogue holds.
            return kind != .control
        case let .pathPrefix(prefix):
            return pathPrefixes.contains(prefix)
        case let .bundle(key), let .resources(key, _):
            switch key {
            case let .identifier(identifier): return identifiers.contains(identifier)
            case let .path(path): return bundlePaths.contains(path)
            }
        case let .uuid(key):
            return uuidKeys.contains(key)
        case let .symbolPath(path):
            // A directory spells the leading digits of the keys beneath it, in any case.
            return path.layout == nil ? !uuidKeys.isEmpty : keyPrefixes.contains(path.keyPrefix)
        case let .symbolFile(file):
            return uuidKeys.contains(file.key)
        }
    }
}
