public import BundleModel
import Foundation
import GRDB
public import SystemCalls

/// What a publisher reports about itself (`bundlefs status`): one record, the `publication` row
/// (columns in snake case) and the JSON `status --json` shows (keys as the properties are named).
public struct PublicationStatus: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        case starting, connecting
        case sendingWhole = "sending whole"
        case sending, current
        /// PostgreSQL is away: see `lastError`.
        case waiting
        /// Another publisher has the host.
        case refused
        case stopped
    }

    /// Where to, without any password (`PostgresURL.redacted`).
    public var destination: String
    public var host: String
    public var pid: Int32
    public var state: State
    /// The last change (outbox sequence number) PostgreSQL has.
    public var sentThrough: Int64 = 0
    public var lastSentAt: Double?
    public var lastWholeAt: Double?
    public var lastError: String?
    public var lastErrorAt: Double?
    public var updatedAt: Double

    public init(destination: String, host: String, pid: Int32, state: State, updatedAt: Double) {
        self.destination = destination
        self.host = host
        self.pid = pid
        self.state = state
        self.updatedAt = updatedAt
    }

    /// As synthesized, except that an absent value is written as null rather than left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(destination, forKey: .destination)
        try container.encode(host, forKey: .host)
        try container.encode(pid, forKey: .pid)
        try container.encode(state, forKey: .state)
        try container.encode(sentThrough, forKey: .sentThrough)
        try container.encode(lastSentAt, forKey: .lastSentAt)
        try container.encode(lastWholeAt, forKey: .lastWholeAt)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(lastErrorAt, forKey: .lastErrorAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }

    /// The JSON form.
    public var jsonBytes: [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }
}

/// The `publication` row (id 1): the status's own coding, columns in snake case.
struct PublicationRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "publication"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    private enum Key: String, CodingKey { case id }

    var status: PublicationStatus

    init(_ status: PublicationStatus) { self.status = status }
    init(from decoder: any Decoder) throws { status = try PublicationStatus(from: decoder) }

    func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .id)
    }
}

/// Changes waiting in the outbox: how many, and how old the oldest is.
public struct OutboxBacklog: Sendable, Equatable {
    public var changes: Int
    /// Bundles in the catalogue at the same moment, when asked for: with no changes waiting, what
    /// PostgreSQL must have.
    public var bundles: Int?
    public var oldestQueuedAt: Double?
    public var lastSequence: Int64
}

/// A batch of the outbox to send: the bundles as they are now at the paths that changed (absent
/// ones were removed), and the last sequence number the batch covers.
public struct OutboxBatch: Sendable {
    public var through: Int64
    public var present: [BundleRecord]
    public var removed: [FilePath]
}

extension Catalogue {
    /// The catalogue file's identity: random, made with the file, so PostgreSQL can tell a
    /// recreated catalogue (whose changes it never saw) from the one it has.
    public func identity() throws -> String {
        try read { db in try String.fetchOne(db, sql: "SELECT catalogue FROM identity WHERE id = 1") } ?? ""
    }

    /// Starts queueing changes (the triggers fire while the row exists) and records who publishes.
    /// Returns where the last publisher of this host and destination stopped, or nil when the queue
    /// cannot be trusted to hold every change since (publishing was off, or went elsewhere): then
    /// the host is sent whole.
    @discardableResult
    public func beginPublishing(_ status: PublicationStatus) throws -> Int64? {
        try write { db in
            let existing = try Row.fetchOne(db, sql: "SELECT host, destination, sent_through FROM publication WHERE id = 1")
            let continuing = existing.map { $0["host"] as String == status.host && $0["destination"] as String == status.destination } ?? false
            if !continuing { try db.execute(sql: "DELETE FROM outbox") }
            // A whole send owed and not yet made (-1) stays owed across restarts until one commits.
            let previous: Int64 = continuing ? existing?["sent_through"] ?? Self.wholeSendOwed : Self.wholeSendOwed
            try Self.writePublication(db, status, sentThrough: previous)
            return previous == Self.wholeSendOwed ? nil : previous
        }
    }

    /// Stops queueing and forgets the queue: the next publisher sends this host whole anyway.
    public func endPublishing() throws {
        try write { db in
            try db.execute(sql: "DELETE FROM publication")
            try db.execute(sql: "DELETE FROM outbox")
        }
    }

    /// `publication.sent_through` while the host must be sent whole before anything else.
    static let wholeSendOwed: Int64 = -1

    /// The publisher's state and last error (how far it got is `outboxSent`'s to record).
    public func writePublicationState(_ status: PublicationStatus) throws {
        try write { db in
            try PublicationRow(status).update(db, columns: ["pid", "state", "last_error", "last_error_at", "updated_at"])
        }
    }

    private static func writePublication(_ db: Database, _ status: PublicationStatus, sentThrough: Int64) throws {
        var status = status
        status.sentThrough = sentThrough
        try PublicationRow(status).insert(db, onConflict: .replace)
    }

    /// The publisher's last report, if one ever ran on this catalogue and is still configured.
    public func publicationStatus() throws -> PublicationStatus? {
        try read { db in
            guard try db.tableExists("publication") else { return nil }
            return try PublicationRow.fetchOne(db, key: 1)?.status
        }
    }

    /// `countingBundles` adds the catalogue's bundle count, read in the same snapshot (a scan of
    /// the table: asked for only when a publisher checks PostgreSQL's count, not at every poll).
    public func outboxBacklog(countingBundles: Bool = false) throws -> OutboxBacklog {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), min(queued_at) FROM outbox")
            let last = try Self.outboxHead(db)
            let bundles = countingBundles ? try Int.fetchOne(db, sql: "SELECT count(*) FROM bundles") ?? 0 : nil
            return OutboxBacklog(changes: row?[0] ?? 0, bundles: bundles, oldestQueuedAt: row?[1], lastSequence: last)
        }
    }

    /// The oldest `limit` changes, each path once, read with the bundles in one snapshot.
    public func outboxBatch(limit: Int) throws -> OutboxBatch? {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT seq, path FROM outbox ORDER BY seq LIMIT ?", arguments: [limit])
            guard let through = rows.last?["seq"] as Int64? else { return nil }
            // Deduplicated as paths (bytes): as Strings, NFC and NFD twins would be one.
            var seen = Set<FilePath>()
            let paths = rows.map { FilePath($0["path"] as String) }.filter { seen.insert($0).inserted }
            var present: [BundleRecord] = []
            var removed: [FilePath] = []
            for path in paths {
                if let bundle = try Self.fetchBundle(db, atPath: path) {
                    present.append(bundle.record)
                } else {
                    removed.append(path)
                }
            }
            return OutboxBatch(through: through, present: present, removed: removed)
        }
    }

    /// The sequence number every change queued so far is at or below: read before a whole send,
    /// whose later changes the outbox then still holds.
    public func outboxHead() throws -> Int64 { try read(Self.outboxHead) }

    private static func outboxHead(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'") ?? 0
    }

    /// Drops the changes PostgreSQL now has and records how far it is.
    public func outboxSent(through sequence: Int64, whole: Bool, at time: Double) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE seq <= ?", arguments: [sequence])
            if whole {
                try db.execute(sql: "UPDATE publication SET sent_through = max(sent_through, ?), last_sent_at = ?, last_whole_at = ?, updated_at = ? WHERE id = 1",
                               arguments: [sequence, time, time, time])
            } else {
                // A batch never settles a whole send still owed.
                try db.execute(sql: """
                    UPDATE publication SET sent_through = CASE WHEN sent_through = ? THEN sent_through ELSE max(sent_through, ?) END,
                        last_sent_at = ?, updated_at = ? WHERE id = 1
                    """, arguments: [Self.wholeSendOwed, sequence, time, time])
            }
        }
    }
}
