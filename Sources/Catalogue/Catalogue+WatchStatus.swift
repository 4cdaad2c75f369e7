import BundleModel
import GRDB

/// What a running watcher reports about itself (`bundlefs status`).
public struct WatchStatus: Sendable, Equatable {
    public var pid: Int32
    /// `starting`, `watching`, `rescanning` or `stopped`.
    public var state: String
    public var roots: [String]
    public var startedAt: Double
    public var updatedAt: Double
    public var watchedDirectories: Int
    public var unwatchedDirectories: Int
    public var overflows: Int
    public var rescans: Int
    public var events: Int
    public var batches: Int
    /// Events read but not yet reflected in the catalogue.
    public var pending: Int
    public var lastEventAt: Double?
    public var lastBatchAt: Double?

    public init(pid: Int32, state: String, roots: [String], startedAt: Double) {
        self.pid = pid
        self.state = state
        self.roots = roots
        self.startedAt = startedAt
        updatedAt = startedAt
        watchedDirectories = 0
        unwatchedDirectories = 0
        overflows = 0
        rescans = 0
        events = 0
        batches = 0
        pending = 0
    }
}

extension Catalogue {
    public func writeWatchStatus(_ status: WatchStatus) throws {
        try write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO watch_status (id, pid, state, roots, started_at, updated_at, watched_directories,
                    unwatched_directories, overflows, rescans, events, batches, pending, last_event_at, last_batch_at)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    status.pid, status.state, JSONValue.strings(status.roots).serialized(), status.startedAt, status.updatedAt,
                    status.watchedDirectories, status.unwatchedDirectories, status.overflows, status.rescans, status.events,
                    status.batches, status.pending, status.lastEventAt, status.lastBatchAt,
                ])
        }
    }

    /// The last status a watcher wrote, if any watcher ever ran on this catalogue.
    public func watchStatus() throws -> WatchStatus? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM watch_status WHERE id = 1") else { return nil }
            var status = WatchStatus(pid: row["pid"], state: row["state"], roots: JSONArrays.decode(row["roots"]), startedAt: row["started_at"])
            status.updatedAt = row["updated_at"]
            status.watchedDirectories = row["watched_directories"]
            status.unwatchedDirectories = row["unwatched_directories"]
            status.overflows = row["overflows"]
            status.rescans = row["rescans"]
            status.events = row["events"]
            status.batches = row["batches"]
            status.pending = row["pending"]
            status.lastEventAt = row["last_event_at"]
            status.lastBatchAt = row["last_batch_at"]
            return status
        }
    }
}
