/// The PostgreSQL schema, one migration per version, applied under an advisory lock so that hosts
/// starting together migrate once. Docs/postgres.md describes every table.
enum PublishedSchema {
    /// `pg_advisory_xact_lock` keys: migrations, and (with the host's hash) one host's writes.
    static let migrationLock = "7497417238497061"

    /// The session lock of one host's publisher, for a host name in `$1`: 64 bits of its MD5, where
    /// `hashtext`'s 32 bits would let hosts among thousands share a key and refuse each other.
    static let hostLock = "('x' || left(md5('bundlefs host ' || $1), 16))::bit(64)::bigint"

    static let migrations: [String] = [
        // v1: hosts, their bundles (keyed by host and path, the whole record in `record`), and the
        // slices of their executables for UUID and architecture lookups.
        """
        CREATE TABLE bundlefs_hosts (
            host text PRIMARY KEY,
            catalogue text NOT NULL,
            sent_through bigint NOT NULL,
            bundles bigint NOT NULL,
            whole_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        );
        CREATE TABLE bundlefs_bundles (
            host text NOT NULL REFERENCES bundlefs_hosts (host) ON DELETE CASCADE,
            path bytea NOT NULL,
            path_text text NOT NULL,
            identifier text,
            identifier_key text,
            kind text NOT NULL,
            name text NOT NULL,
            version text,
            short_version text,
            in_archive boolean NOT NULL,
            error_count integer NOT NULL,
            record bytea NOT NULL,
            PRIMARY KEY (host, path)
        );
        CREATE INDEX bundlefs_bundles_by_identifier ON bundlefs_bundles (identifier_key text_pattern_ops);
        CREATE INDEX bundlefs_bundles_by_kind ON bundlefs_bundles (kind);
        CREATE TABLE bundlefs_binaries (
            host text NOT NULL,
            path bytea NOT NULL,
            slice integer NOT NULL,
            arch text NOT NULL,
            uuid_key text,
            PRIMARY KEY (host, path, slice),
            FOREIGN KEY (host, path) REFERENCES bundlefs_bundles (host, path) ON DELETE CASCADE
        );
        CREATE INDEX bundlefs_binaries_by_uuid ON bundlefs_binaries (uuid_key) WHERE uuid_key IS NOT NULL;
        CREATE INDEX bundlefs_binaries_by_arch ON bundlefs_binaries (arch);
        """,
        // v2: who publishes each host now. The publisher holding the host's session lock writes its
        // row, so that one refused can say who has the host; `backend_pid` ties the row to the lock.
        """
        CREATE TABLE bundlefs_publishers (
            host text PRIMARY KEY,
            machine text NOT NULL,
            pid integer NOT NULL,
            backend_pid integer NOT NULL,
            since timestamptz NOT NULL
        );
        """,
        // v3: the claims of installed applications and the tags of the types they declare, the
        // rows of `LaunchRows` as the local catalogue has them, so that `open-with --database`
        // reads only the applications that can match. Claims are keyed by what is claimed first
        // (a lookup is an index range); the (host, path) indexes make the cascades of a bundle's
        // deletion index lookups. Rows published before cannot be filled in here (their claims
        // are derived from the record, in Swift): `rows_version` 2 makes each host's next
        // publisher send it whole (`rowsVersion`).
        """
        CREATE TABLE bundlefs_launch_claims (
            host text NOT NULL,
            path bytea NOT NULL,
            target_kind text NOT NULL,
            target text NOT NULL,
            role text NOT NULL,
            rank text NOT NULL,
            PRIMARY KEY (target_kind, target, host, path, role, rank),
            FOREIGN KEY (host, path) REFERENCES bundlefs_bundles (host, path) ON DELETE CASCADE
        );
        CREATE INDEX bundlefs_launch_claims_by_bundle ON bundlefs_launch_claims (host, path);
        CREATE TABLE bundlefs_type_tags (
            host text NOT NULL,
            path bytea NOT NULL,
            kind text NOT NULL,
            value text NOT NULL,
            type_key text NOT NULL,
            FOREIGN KEY (host, path) REFERENCES bundlefs_bundles (host, path) ON DELETE CASCADE
        );
        CREATE INDEX bundlefs_type_tags_by_value ON bundlefs_type_tags (kind, value);
        CREATE INDEX bundlefs_type_tags_by_bundle ON bundlefs_type_tags (host, path);
        ALTER TABLE bundlefs_hosts ADD COLUMN rows_version integer NOT NULL DEFAULT 2;
        """,
    ]

    /// The version whose rows a publisher writes for each bundle: raised by a migration that adds
    /// rows derived from records, which SQL cannot fill in. A host whose `rows_version` is lower
    /// is sent whole by its next publisher; `open-with --database` needs this version.
    static let rowsVersion = 3

    /// Brings the database to the current version; refuses one a newer bundlefs migrated.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.executeScript("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try connection.executeScript("CREATE TABLE IF NOT EXISTS bundlefs_schema (version integer NOT NULL)")
            let current = Int(try connection.execute("SELECT max(version) FROM bundlefs_schema").scalar ?? "0") ?? 0
            guard current <= migrations.count else {
                throw PostgresError("the database's bundlefs schema is version \(current), newer than this bundlefs (\(migrations.count)); upgrade bundlefs")
            }
            for version in current..<migrations.count {
                try connection.executeScript(migrations[version])
                try connection.execute("INSERT INTO bundlefs_schema (version) VALUES ($1)", [String(version + 1)])
            }
            try connection.executeScript("COMMIT")
        } catch {
            try? connection.executeScript("ROLLBACK")
            throw error
        }
    }

    /// The version a reader finds (0 when bundlefs never published there).
    static func version(_ connection: PostgresConnection) throws -> Int {
        guard try connection.execute("SELECT to_regclass('bundlefs_schema') IS NOT NULL").scalar == "t" else { return 0 }
        return Int(try connection.execute("SELECT max(version) FROM bundlefs_schema").scalar ?? "0") ?? 0
    }
}
