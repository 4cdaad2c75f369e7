public import BundleModel
public import Catalogue
import Codecs
import Foundation
import SystemCalls

/// What PostgreSQL holds about one host.
public struct PublishedHost: Sendable, Equatable {
    /// The identity of the catalogue file the rows came from (`Catalogue.identity`).
    public var catalogue: String
    /// The last outbox change the rows include.
    public var sentThrough: Int64
    public var bundles: Int
    /// Whether its rows have every table this bundlefs writes (`rows_version`): rows a publisher of
    /// an older schema sent lack the claims and type tags, and are sent whole again.
    public var rowsAreCurrent: Bool

    /// The columns of `bundlefs_hosts` that `init(row:)` reads, in its order.
    static let columns = "catalogue, sent_through, bundles, rows_version"

    init(row: [String?]) {
        catalogue = row[0] ?? ""
        sentThrough = Int64(row[1] ?? "0") ?? 0
        bundles = Int(row[2] ?? "0") ?? 0
        rowsAreCurrent = (Int(row[3] ?? "0") ?? 0) >= PublishedSchema.rowsVersion
    }

    /// Why batches cannot build on these rows though nothing was lost: they came from another
    /// catalogue file than `identity`, or from an older bundlefs. Nil when they can.
    public func reasonToReplace(identity: String) -> String? {
        if catalogue != identity { return "its rows there came from another catalogue file" }
        if !rowsAreCurrent { return "its rows there were sent by an older bundlefs, without the tables this one adds" }
        return nil
    }

    /// Why these rows hold less than the publisher was told committed, up to `acknowledged`, or
    /// nil. `sent_through` is the host's generation: every commit of a publisher raises or keeps
    /// it, so a lower one is a database restored from before (Docs/postgres.md, "When the
    /// database loses what it had").
    public func reasonLost(acknowledged: Int64) -> String? {
        sentThrough < acknowledged ? "the database lost changes it had (it has \(sentThrough) of \(acknowledged))" : nil
    }
}

/// PostgreSQL no longer has what it acknowledged of a host (rows deleted, tables truncated, an
/// older dump restored): a batch would build on rows that are not there, so the host is sent whole.
public struct HostRowsLost: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }

    /// The host's row was deleted (its bundles with it), truncated, or the schema dropped.
    public static let rowGone = HostRowsLost(reason: "its row in bundlefs_hosts is gone")
}

/// A bundle as PostgreSQL has it: which host, and the whole record.
public struct PublishedBundle: Sendable {
    public var host: String
    public var record: BundleRecord
}

/// The publisher that has a host, as it recorded itself in `bundlefs_publishers`.
public struct HostPublisher: Sendable, Equatable, CustomStringConvertible {
    public var machine: String
    public var pid: Int32
    /// When it took the host, in UTC.
    public var since: String

    public var description: String { "pid \(pid) on \(machine), since \(since)" }
}

/// Another publisher has the host: two writing one host's rows would each replace the other's.
public struct HostTaken: Error, Sendable, CustomStringConvertible {
    public var host: String
    /// nil when it has not recorded itself (yet).
    public var holder: HostPublisher?

    public var description: String {
        "host \(host) is already published there by another bundlefs (\(holder.map { "\($0)" } ?? "it has not said which yet"))"
    }
}

/// The shared PostgreSQL catalogue: writing one host's rows (whole, or a batch of changes), and
/// the queries of `bundlefs query --database`. Every write to a host's rows holds that host's
/// advisory lock, so a one-off `bundlefs publish` and a running publisher never interleave.
public final class PublishedCatalogue {
    let connection: PostgresConnection
    /// The schema's version: this bundlefs's for a publisher, which migrates; what a reader found.
    private(set) var schemaVersion: Int
    /// The host this session has (`claim`).
    private var claimed: String?
    /// Whether this session's row in `bundlefs_publishers` is known to be there.
    private var recorded = false
    /// What connecting did to the schema (`ensureSchema`), for the publisher to say.
    public private(set) var schemaChange: String?

    /// Connects and brings the schema up to date (a publisher).
    public init(url: String) throws {
        connection = try PostgresConnection(url)
        // A publisher's session holds its host until it ends: over TCP, a machine that vanished
        // without closing it is noticed in about a minute, not after the system's two hours.
        try connection.executeScript("SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3")
        schemaVersion = PublishedSchema.migrations.count
        schemaChange = try ensureSchema()
    }

    /// Connects to read only: no migration, and a clear error where nothing was published.
    public init(readingFrom url: String) throws {
        connection = try PostgresConnection(url)
        schemaVersion = try Self.readableVersion(connection)
    }

    private static func readableVersion(_ connection: PostgresConnection) throws -> Int {
        let version = try PublishedSchema.version(connection)
        guard version > 0 else { throw PostgresError("no bundlefs catalogue in this database: publish to it first (`bundlefs publish URL`)") }
        guard version <= PublishedSchema.migrations.count else {
            throw PostgresError("the database's bundlefs schema is version \(version), newer than this bundlefs (\(PublishedSchema.migrations.count)); upgrade bundlefs")
        }
        return version
    }

    /// A reader kept between requests: a schema older than this bundlefs's may have been migrated
    /// by a publisher since, and its queries then use what the migration added. One at this
    /// bundlefs's version is not asked again.
    public func readSchemaVersionAgain() throws {
        guard schemaVersion < PublishedSchema.migrations.count else { return }
        schemaVersion = try Self.readableVersion(connection)
    }

    /// Connected, and no transaction left open: a failed statement leaves the connection usable.
    public var isUsable: Bool { connection.isIdle }

    /// PostgreSQL's JIT compilation of this session's plans (`jit`), on by default.
    public func setJIT(_ on: Bool) throws { try connection.executeScript("SET jit = \(on ? "on" : "off")") }

    /// Still connected: false once the server closed the session (a restart, a dropped link).
    public var isConnected: Bool { connection.isUsable }

    // MARK: Hosts

    public func host(_ name: String) throws -> PublishedHost? {
        let rows = try connection.execute("SELECT \(PublishedHost.columns) FROM bundlefs_hosts WHERE host = $1", [name])
        return rows.rows.first.map(PublishedHost.init(row:))
    }

    /// How many bundle rows the host really has (rows deleted by hand show here, not in `host`).
    public func bundleCount(host: String) throws -> Int {
        Int(try connection.execute("SELECT count(*) FROM bundlefs_bundles WHERE host = $1", [host]).scalar ?? "0") ?? 0
    }

    /// Brings the schema to this bundlefs's version, creating it again if it was dropped or
    /// damaged since (a read when it is whole). Returns what it did, or nil. A schema made anew
    /// lost this session's row in `bundlefs_publishers`: the next `claim` writes it again.
    @discardableResult
    public func ensureSchema() throws -> String? {
        let change: String
        switch try PublishedSchema.migrate(connection) {
        case .none: return nil
        case .migrated(from: 0): change = "created the bundlefs schema (version \(schemaVersion))"
        case .migrated(let version): change = "migrated the bundlefs schema from version \(version) to \(schemaVersion)"
        case .rebuilt(let reason): change = "created the bundlefs schema again (\(reason)); every host's publisher sends it whole"
        }
        recorded = false
        return change
    }

    /// Makes this session the one publisher of `host` until it ends (the lock goes with the
    /// session, so a publisher killed or disconnected frees the host), and records who it is.
    /// Throws `HostTaken`, naming the holder, when another session has the host.
    public func claim(host: String) throws {
        if claimed != host {
            guard try connection.execute("SELECT pg_try_advisory_lock(\(PublishedSchema.hostLock))", [host]).scalar == "t" else {
                throw HostTaken(host: host, holder: try publisher(of: host))
            }
            claimed = host
            recorded = false
        }
        guard !recorded else { return }
        try connection.execute("""
            INSERT INTO bundlefs_publishers (host, machine, pid, backend_pid, since) VALUES ($1, $2, $3, pg_backend_pid(), now())
            ON CONFLICT (host) DO UPDATE SET machine = EXCLUDED.machine, pid = EXCLUDED.pid, backend_pid = EXCLUDED.backend_pid,
                since = EXCLUDED.since
            """, [host, ProcessInfo.processInfo.hostName, String(getpid())])
        recorded = true
    }

    /// The database lost what it had (a truncation, a restore): the next `claim` writes this
    /// session's row in `bundlefs_publishers` again, so that a refusal can still name it.
    public func claimMayBeLost() { recorded = false }

    /// Gives the host up before the session ends, so that the table names only publishers that run.
    public func release() {
        guard let host = claimed, connection.isIdle else { return }
        claimed = nil
        _ = try? connection.execute("DELETE FROM bundlefs_publishers WHERE host = $1 AND backend_pid = pg_backend_pid()", [host])
        _ = try? connection.execute("SELECT pg_advisory_unlock_all()")
    }

    /// Who has the host: its row, if the session holding the host's lock wrote it (a row left by
    /// a publisher that was killed names nobody).
    func publisher(of host: String) throws -> HostPublisher? {
        let rows = try connection.execute("""
            WITH lock AS (SELECT \(PublishedSchema.hostLock) AS key)
            SELECT p.machine, p.pid, to_char(p.since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')
            FROM bundlefs_publishers p, lock
            JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                AND l.classid = ((lock.key >> 32) & 4294967295)::oid AND l.objid = (lock.key & 4294967295)::oid
            WHERE p.host = $1 AND l.pid = p.backend_pid
            """, [host])
        guard let row = rows.rows.first else { return nil }
        return HostPublisher(machine: row[0] ?? "", pid: Int32(row[1] ?? "") ?? 0, since: row[2] ?? "")
    }

    // MARK: Writing

    /// Replaces every row of `host` with the catalogue's bundles, in one transaction. `through`
    /// is the outbox position read before the catalogue was: later changes are sent after.
    /// Returns how many bundles were sent.
    @discardableResult
    public func sendWhole(host: String, from catalogue: any CatalogueOutbox, identity: String, through: Int64) throws -> Int {
        try transaction(host: host) {
            try connection.execute("""
                INSERT INTO bundlefs_hosts (host, catalogue, sent_through, bundles, whole_at, updated_at, rows_version)
                VALUES ($1, $2, $3, 0, now(), now(), $4)
                ON CONFLICT (host) DO UPDATE SET catalogue = EXCLUDED.catalogue, sent_through = EXCLUDED.sent_through,
                    whole_at = now(), updated_at = now(), rows_version = EXCLUDED.rows_version
                """, [host, identity, String(through), String(PublishedSchema.rowsVersion)])
            try connection.execute("DELETE FROM bundlefs_bundles WHERE host = $1", [host])
            var dependents = PublishedRows.Dependents()
            // Chunks are read one transaction each: a path deleted and written again meanwhile comes
            // back under a new row id. Its first version is sent; the newer one is in the outbox
            // after `through`, so a batch sends it next.
            var sentPaths = Set<FilePath>()
            try connection.copy(into: "bundlefs_bundles", columns: PublishedRows.bundleColumns) { rows in
                try catalogue.forEachBundleChunk { chunk in
                    for bundle in chunk where sentPaths.insert(bundle.record.key).inserted {
                        PublishedRows.append(bundle.record, host: host, to: &rows, dependents: &dependents)
                    }
                    try connection.flush(&rows)
                }
            }
            let sent = sentPaths.count
            try copy(dependents)
            try connection.execute("UPDATE bundlefs_hosts SET bundles = $2 WHERE host = $1", [host, String(sent)])
            return sent
        }
    }

    /// Applies a batch of the outbox: the rows at its paths are deleted, those still present
    /// written anew. Sending the same batch twice leaves the same rows. First, in the same
    /// transaction, the host's row must still be what this publisher left (catalogue `identity`,
    /// changes up to `acknowledged`, as many bundle rows as it recorded): otherwise nothing is
    /// written and `HostRowsLost` says why.
    public func sendChanges(host: String, batch: OutboxBatch, identity: String, acknowledged: Int64) throws {
        try transaction(host: host) {
            let found = try connection.execute("""
                SELECT \(PublishedHost.columns), (SELECT count(*) FROM bundlefs_bundles WHERE host = $1)
                FROM bundlefs_hosts WHERE host = $1 FOR UPDATE
                """, [host])
            guard let row = found.rows.first else { throw HostRowsLost.rowGone }
            let published = PublishedHost(row: row)
            if let reason = published.reasonToReplace(identity: identity) ?? published.reasonLost(acknowledged: acknowledged) {
                throw HostRowsLost(reason: reason)
            }
            let rows = Int(row[4] ?? "0") ?? 0
            guard rows == published.bundles else { throw HostRowsLost(reason: "the database has \(rows) rows of the \(published.bundles) bundles it was sent") }
            let paths = (batch.present.map(\.key) + batch.removed).map { Hex.string(PublishedRows.key($0)) }
            let deleted = try connection.execute("DELETE FROM bundlefs_bundles WHERE host = $1 AND path IN (SELECT decode(unnest($2::text[]), 'hex'))",
                                                 [host, "{" + paths.joined(separator: ",") + "}"]).affected
            var dependents = PublishedRows.Dependents()
            if !batch.present.isEmpty {
                try connection.copy(into: "bundlefs_bundles", columns: PublishedRows.bundleColumns) { rows in
                    for record in batch.present { PublishedRows.append(record, host: host, to: &rows, dependents: &dependents) }
                }
                try copy(dependents)
            }
            // The paths are distinct, and a row at each was deleted first: every one present is a new row.
            try connection.execute("UPDATE bundlefs_hosts SET sent_through = greatest(sent_through, $2), updated_at = now(), bundles = $3 WHERE host = $1",
                                   [host, String(batch.through), String(rows - deleted + batch.present.count)])
        }
    }

    private func copy(_ dependents: PublishedRows.Dependents) throws {
        for (table, columns, rows) in dependents.tables where !rows.isEmpty {
            try connection.copy(into: table, columns: columns) { copied in
                for row in rows { copied.append(row) }
            }
        }
    }

    private func transaction<T>(host: String, _ body: () throws -> T) throws -> T {
        try connection.executeScript("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(\(PublishedSchema.migrationLock) # hashtext($1)::bigint)", [host])
            let result = try body()
            try connection.executeScript("COMMIT")
            return result
        } catch {
            if connection.isUsable { try? connection.executeScript("ROLLBACK") }
            throw error
        }
    }
}
