public import Codecs
import GRDB
public import SystemCalls

/// What a running watcher reports about itself (`bundlefs status`).
public struct WatchStatus: Sendable, Equatable {
    public var pid: Int32
    /// `starting`, `watching`, `rescanning`, `retrying` (the catalogue cannot be written: see
    /// `problem`) or `stopped`.
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
    /// What keeps the catalogue from being current (it cannot be written, say), since when.
    public var problem: String?
    public var problemSince: Double?

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

/// The status as the watcher publishes it beside the catalogue (in its lock file), where it can be
/// written when the catalogue cannot: the disk is full, another process holds it locked.
extension WatchStatus {
    public var json: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        return .object([
            ("pid", .integer(Int64(pid))), ("state", .string(state)), ("roots", .strings(roots)),
            ("startedAt", .number(startedAt)), ("updatedAt", .number(updatedAt)),
            ("watchedDirectories", .integer(Int64(watchedDirectories))), ("unwatchedDirectories", .integer(Int64(unwatchedDirectories))),
            ("overflows", .integer(Int64(overflows))), ("rescans", .integer(Int64(rescans))), ("events", .integer(Int64(events))),
            ("batches", .integer(Int64(batches))), ("pending", .integer(Int64(pending))),
            ("lastEventAt", number(lastEventAt)), ("lastBatchAt", number(lastBatchAt)),
            ("problem", .optional(problem)), ("problemSince", number(problemSince)),
        ])
    }

    /// Reads what `json` wrote; nil for anything else (a write half done, say).
    public init?(json: JSONValue) {
        func integer(_ key: String) -> Int? { if case let .integer(value)? = json[key] { Int(value) } else { nil } }
        func number(_ key: String) -> Double? {
            switch json[key] {
            case let .number(value)?: value
            case let .integer(value)?: Double(value)
            default: nil
            }
        }
        guard let pid = integer("pid"), let state = json["state"]?.stringValue, let roots = json["roots"]?.arrayValue,
              let startedAt = number("startedAt"), let updatedAt = number("updatedAt")
        else { return nil }
        self.init(pid: Int32(pid), state: state, roots: roots.compactMap(\.stringValue), startedAt: startedAt)
        self.updatedAt = updatedAt
        watchedDirectories = integer("watchedDirectories") ?? 0
        unwatchedDirectories = integer("unwatchedDirectories") ?? 0
        overflows = integer("overflows") ?? 0
        rescans = integer("rescans") ?? 0
        events = integer("events") ?? 0
        batches = integer("batches") ?? 0
        pending = integer("pending") ?? 0
        lastEventAt = number("lastEventAt")
        lastBatchAt = number("lastBatchAt")
        problem = json["problem"]?.stringValue
        problemSince = number("problemSince")
    }

    /// What the last watcher of `catalogue` published, if it can be read.
    public static func published(catalogue: FilePath) -> WatchStatus? {
        // A read that meets a write half done parses badly: read again.
        for _ in 0..<5 {
            guard let bytes = FileLock.published(at: Catalogue.lockPath(catalogue: catalogue)) else { return nil }
            if bytes.isEmpty { return nil }
            if let text = String(validating: bytes, as: UTF8.self), let value = try? JSONValue.parse(text), let status = WatchStatus(json: value) {
                return status
            }
        }
        return nil
    }
}

