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
    ]

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
