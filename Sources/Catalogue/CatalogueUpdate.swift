public import BundleModel
public import SystemCalls

/// What one turn of the watcher changed, told after its transactions committed: the stream a
/// presentation of the tree (the view) is kept current by. It names what changed; the catalogue
/// and the tree hold what it is now, and are read again for it.
public struct CatalogueUpdate: Sendable {
    /// Subtrees renamed within a root, their rows moved with them, in the order made.
    public var renames: [(from: FilePath, to: FilePath)] = []
    /// Subtrees whose rows were removed (what still exists is written again after).
    public var removals: [FilePath] = []
    /// Bundles whose rows were written or removed.
    public var bundles: Set<FilePath> = []
    /// Directories whose entries may look different now, with the entry names events gave; nil
    /// names when which ones changed is not known (a directory re-read by a rescan).
    public var directories: [FilePath: Set<FileName>?] = [:]
    /// Directories whose archives were read again or found gone: their bundles may differ.
    public var archiveDirectories: Set<FilePath> = []
    /// Anything may have changed (a full rescan wrote straight to the catalogue): reload.
    public var reloaded = false
    /// Bundles a turn read while the catalogue could not be written (SPEC.md "Faults"), by path:
    /// the record read, or nil where a bundle no longer is. A presentation takes these instead of
    /// the catalogue's rows until the rescan that ends the fault writes them (then `reloaded`).
    public var unwritten: [FilePath: BundleRecord?] = [:]

    public init() {}

    public var isEmpty: Bool {
        renames.isEmpty && removals.isEmpty && bundles.isEmpty && directories.isEmpty && archiveDirectories.isEmpty && !reloaded
    }

    /// Notes that an entry (`name`), or any entry (nil), of a directory changed.
    public mutating func touch(_ directory: FilePath, name: FileName?) {
        if let name {
            if case let .some(.some(names)) = directories[directory] {
                directories[directory] = .some(names.union([name]))
            } else if directories[directory] == nil {
                directories[directory] = .some([name])
            }
        } else {
            directories[directory] = .some(nil)
        }
    }

    /// Notes that the item at `path` changed in its parent's listing.
    public mutating func touchItem(_ path: FilePath) { touch(path.parent, name: path.lastComponent) }
}
