import Foundation
import GRDB
public import SystemCalls

/// What a running watcher reports about itself (`bundlefs status`): one record, declared once,
/// that is both the catalogue's `watch_status` row (GRDB, columns in snake case) and the JSON the
/// watcher publishes in its lock file (keys as the properties are named), where `status` reads it.
public struct WatchStatus: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        case starting, watching, rescanning
        /// The catalogue cannot be written: see `problem`.
        case retrying
        case stopped
    }

    public var pid: Int32
    public var state: State
    public var roots: [String]
    public var startedAt: Double
    public var updatedAt: Double
    public var watchedDirectories = 0
    public var unwatchedDirectories = 0
    public var overflows = 0
    public var rescans = 0
    public var events = 0
    public var batches = 0
    /// Events read but not yet reflected in the catalogue.
    public var pending = 0
    public var lastEventAt: Double?
    public var lastBatchAt: Double?
    /// What keeps the catalogue from being current (it cannot be written, say), since when.
    public var problem: String?
    public var problemSince: Double?
    /// How the tree is watched: "fanotify" or "inotify"; `inotifySubtrees` are the subtrees that
    /// fanotify cannot cover (another filesystem), with why. Events about directories outside the
    /// roots that a fanotify mark reported and the watcher dropped: `eventsOutside` (v20 in the row).
    public var backend: String?
    public var inotifySubtrees: [String] = []
    public var eventsOutside = 0

    public init(pid: Int32, state: State, roots: [String], startedAt: Double) {
        self.pid = pid
        self.state = state
        self.roots = roots
        self.startedAt = startedAt
        updatedAt = startedAt
    }

    /// As synthesized, except that an absent value is written as null (a JSON key with no value, a
    /// NULL column) rather than left out: readers of `status --json` look for every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pid, forKey: .pid)
        try container.encode(state, forKey: .state)
        try container.encode(roots, forKey: .roots)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(watchedDirectories, forKey: .watchedDirectories)
        try container.encode(unwatchedDirectories, forKey: .unwatchedDirectories)
        try container.encode(overflows, forKey: .overflows)
        try container.encode(rescans, forKey: .rescans)
        try container.encode(events, forKey: .events)
        try container.encode(batches, forKey: .batches)
        try container.encode(pending, forKey: .pending)
        try container.encode(lastEventAt, forKey: .lastEventAt)
        try container.encode(lastBatchAt, forKey: .lastBatchAt)
        try container.encode(problem, forKey: .problem)
        try container.encode(problemSince, forKey: .problemSince)
        try container.encode(backend, forKey: .backend)
        try container.encode(inotifySubtrees, forKey: .inotifySubtrees)
        try container.encode(eventsOutside, forKey: .eventsOutside)
    }

    enum CodingKeys: String, CodingKey {
        case pid, state, roots, startedAt, updatedAt, watchedDirectories, unwatchedDirectories, overflows, rescans, events, batches, pending
        case lastEventAt, lastBatchAt, problem, problemSince, backend, inotifySubtrees, eventsOutside
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pid = try container.decode(Int32.self, forKey: .pid)
        state = try container.decode(State.self, forKey: .state)
        roots = try container.decode([String].self, forKey: .roots)
        startedAt = try container.decode(Double.self, forKey: .startedAt)
        updatedAt = try container.decode(Double.self, forKey: .updatedAt)
        watchedDirectories = try container.decode(Int.self, forKey: .watchedDirectories)
        unwatchedDirectories = try container.decode(Int.self, forKey: .unwatchedDirectories)
        overflows = try container.decode(Int.self, forKey: .overflows)
        rescans = try container.decode(Int.self, forKey: .rescans)
        events = try container.decode(Int.self, forKey: .events)
        batches = try container.decode(Int.self, forKey: .batches)
        pending = try container.decode(Int.self, forKey: .pending)
        lastEventAt = try container.decodeIfPresent(Double.self, forKey: .lastEventAt)
        lastBatchAt = try container.decodeIfPresent(Double.self, forKey: .lastBatchAt)
        problem = try container.decodeIfPresent(String.self, forKey: .problem)
        problemSince = try container.decodeIfPresent(Double.self, forKey: .problemSince)
        backend = try container.decodeIfPresent(String.self, forKey: .backend)
        inotifySubtrees = try container.decodeIfPresent([String].self, forKey: .inotifySubtrees) ?? []
        eventsOutside = try container.decodeIfPresent(Int.self, forKey: .eventsOutside) ?? 0
    }
}

/// The `watch_status` row: the status's own coding, columns in snake case (GRDB stays behind the
/// catalogue's API, so the record is this wrapper, not the public type).
struct WatchStatusRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "watch_status"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var status: WatchStatus

    init(_ status: WatchStatus) { self.status = status }
    init(from decoder: any Decoder) throws { status = try WatchStatus(from: decoder) }
    func encode(to encoder: any Encoder) throws { try status.encode(to: encoder) }
}

extension Catalogue {
    public func writeWatchStatus(_ status: WatchStatus) throws {
        try write { db in
            // One row (its id, the table's only key, is 1 once the table is empty).
            try db.execute(sql: "DELETE FROM watch_status")
            try WatchStatusRow(status).insert(db)
        }
    }

    /// The last status a watcher wrote, if any watcher ever ran on this catalogue.
    public func watchStatus() throws -> WatchStatus? {
        try read { db in try WatchStatusRow.fetchOne(db)?.status }
    }
}

/// The status as the watcher publishes it beside the catalogue (in its lock file), where it can be
/// written when the catalogue cannot: the disk is full, another process holds it locked.
extension WatchStatus {
    /// The JSON form (what `status --json` starts from, too).
    public var jsonBytes: [UInt8] {
        (try? Array(JSONEncoder().encode(self))) ?? []
    }

    /// Reads what `jsonBytes` wrote; nil for anything else (a write half done, say).
    public init?(jsonBytes: [UInt8]) {
        guard let status = try? JSONDecoder().decode(WatchStatus.self, from: Data(jsonBytes)) else { return nil }
        self = status
    }

    /// What the last watcher of `catalogue` published, if it can be read.
    public static func published(catalogue: FilePath) -> WatchStatus? {
        // A read that meets a write half done parses badly: read again.
        for _ in 0..<5 {
            guard let bytes = FileLock.published(at: Catalogue.lockPath(catalogue: catalogue)) else { return nil }
            if bytes.isEmpty { return nil }
            if let status = WatchStatus(jsonBytes: bytes) { return status }
        }
        return nil
    }
}

