public import Scanner

/// What one turn of the watcher changed, for whoever presents the tree (the view): the catalogue
/// writes in the order they were made, and the directories whose entries may look different now.
/// Delivered after the catalogue transaction commits, on the watcher's thread.
public struct WatchUpdate: Sendable {
    /// Subtrees renamed within a root, catalogue rows moved with them.
    public var renames: [(from: String, to: String)] = []
    /// Subtrees whose catalogue rows were removed (before `events` re-add what still exists).
    public var removals: [String] = []
    /// Bundle records written or removed, and directory rows.
    public var events: [ScanEvent] = []
    /// Directories whose entries changed, with the entry names events gave; nil names when a
    /// rescan re-read the directory and which names changed is unknown.
    public var directories: [String: Set<String>?] = [:]
    /// A full rescan ran: anything may have changed; reload from the catalogue.
    public var reloaded = false

    public init() {}

    public var isEmpty: Bool {
        renames.isEmpty && removals.isEmpty && events.isEmpty && directories.isEmpty && !reloaded
    }

    public mutating func touch(_ directory: String, name: String?) {
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
}
