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
        // v4: each bundle's names (`BundleRecord.searchedNames`), lower-cased in NFC one a line,
        // and pg_trgm's trigram index of them (contrib; a trusted extension, so the database's
        // owner may create it), so that a word search across a million rows reads only those whose
        // names hold it. Made from records, in Swift: `rows_version` 4 has every host sent whole.
        """
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        ALTER TABLE bundlefs_bundles ADD COLUMN names text NOT NULL DEFAULT '';
        CREATE INDEX bundlefs_bundles_by_names ON bundlefs_bundles USING gin (names gin_trgm_ops);
        """,
        // v5: the words of each bundle's names (`PublishedRows.words`), a row each, so that a word
        // search is a B-tree range of its words (`LIKE 'w%'` under the C collation) rather than the
        // trigram index, whose common trigrams (`app`) are in nearly every row. `names` stays, for
        // the text as typed; its trigram index goes, every write paid for it. Made from records, in
        // Swift: `rows_version` 5 has every host sent whole.
        """
        DROP INDEX IF EXISTS bundlefs_bundles_by_names;
        CREATE TABLE bundlefs_name_words (
            host text NOT NULL,
            path bytea NOT NULL,
            word text COLLATE "C" NOT NULL,
            PRIMARY KEY (host, path, word),
            FOREIGN KEY (host, path) REFERENCES bundlefs_bundles (host, path) ON DELETE CASCADE
        );
        CREATE INDEX bundlefs_name_words_by_word ON bundlefs_name_words (word);
        """,
    ]

    /// The version whose rows a publisher writes for each bundle: raised by a migration that adds
    /// rows derived from records, which SQL cannot fill in. A host whose `rows_version` is lower
    /// is sent whole by its next publisher; `open-with --database` needs this version.
    static let rowsVersion = 5

    /// The version whose rows have the claims and type tags `open-with --database` reads: a host
    /// sent whole since has them, whatever later versions added (v4's names, v5's words).
    static let claimsVersion = 3

    /// The tables each version adds, in the order of `migrations`: a database whose tables are not
    /// those of its recorded version was damaged (a table dropped, `bundlefs_schema` emptied).
    static let tables: [[String]] = [
        ["bundlefs_hosts", "bundlefs_bundles", "bundlefs_binaries"],
        ["bundlefs_publishers"],
        ["bundlefs_launch_claims", "bundlefs_type_tags"],
        [],
        ["bundlefs_name_words"],
    ]

    /// What a migration found before it changed anything.
    enum Repair: Equatable {
        /// At the current version with every table: nothing written.
        case none
        /// Created from nothing, or brought up from an older version.
        case migrated(from: Int)
        /// Its tables were not those of its recorded version (`State.damaged`): every bundlefs
        /// table was dropped and the schema created again, since what was left could not be
        /// trusted to have its constraints. Every host is then sent whole by its publisher.
        case rebuilt(because: String)
    }

    /// Brings the database to the current version, recreating a schema dropped or damaged since;
    /// refuses one a newer bundlefs migrated. Reads first, so a database that is current is not
    /// written (nor locked), which a publisher checking after every failure relies on.
    @discardableResult
    static func migrate(_ connection: PostgresConnection) throws -> Repair {
        if try state(connection) == .current { return .none }
        try connection.executeScript("BEGIN")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(\(migrationLock))")
            // Again under the lock: the publisher that waited for it finds the schema another made.
            let found = try state(connection)
            var repair = Repair.none
            var current = 0
            switch found {
            case .current:
                break
            case .newer(let version):
                throw PostgresError("the database's bundlefs schema is version \(version), newer than this bundlefs (\(migrations.count)); upgrade bundlefs")
            case .older(let version):
                current = version
                repair = .migrated(from: version)
            case .damaged(let reason):
                // Each table before those it refers to, so no CASCADE is needed: a view or key of the
                // user's own on one of them fails the rebuild with PostgreSQL's message naming it,
                // rather than going silently.
                for table in tables.joined().reversed() + ["bundlefs_schema"] { try connection.executeScript("DROP TABLE IF EXISTS \(table)") }
                repair = .rebuilt(because: reason)
            }
            if found != .current {
                try connection.executeScript("CREATE TABLE IF NOT EXISTS bundlefs_schema (version integer NOT NULL)")
                for version in current..<migrations.count {
                    try connection.executeScript(migrations[version])
                    try connection.execute("INSERT INTO bundlefs_schema (version) VALUES ($1)", [String(version + 1)])
                }
            }
            try connection.executeScript("COMMIT")
            return repair
        } catch {
            try? connection.executeScript("ROLLBACK")
            throw error
        }
    }

    /// How the database's bundlefs schema stands against this bundlefs.
    enum State: Equatable {
        case current
        /// Recorded at this version (0: nothing of bundlefs there), with exactly its tables.
        case older(Int)
        case newer(Int)
        /// The tables are not those of the recorded version: some missing (all of them when
        /// `bundlefs_schema` was emptied or dropped while they stayed), or a later version's there
        /// (an older dump restored over a newer schema).
        case damaged(String)
    }

    /// Reads only: which of bundlefs's tables exist (in the search path, where the migrations
    /// created them), then the recorded version.
    static func state(_ connection: PostgresConnection) throws -> State {
        let everyTable = Array(tables.joined())
        let found = try connection.execute("SELECT t FROM unnest($1::text[]) t WHERE to_regclass(t) IS NOT NULL",
                                           ["{" + (["bundlefs_schema"] + everyTable).joined(separator: ",") + "}"])
        var present = Set(found.rows.compactMap { $0.first ?? nil })
        let version = present.remove("bundlefs_schema") == nil ? 0
            : Int(try connection.execute("SELECT coalesce(max(version), 0) FROM bundlefs_schema").scalar ?? "0") ?? 0
        if version > migrations.count { return .newer(version) }
        let expected = Set(tables.prefix(version).joined())
        if present != expected {
            let missing = everyTable.filter { expected.contains($0) && !present.contains($0) }
            let extra = everyTable.filter { !expected.contains($0) && present.contains($0) }
            return .damaged("its tables are not those of version \(version): "
                + [missing.isEmpty ? nil : "missing \(missing.joined(separator: ", "))",
                   extra.isEmpty ? nil : "not of that version \(extra.joined(separator: ", "))"].compactMap { $0 }.joined(separator: "; "))
        }
        return version == migrations.count ? .current : .older(version)
    }

    /// The version a reader finds (0 when bundlefs never published there).
    static func version(_ connection: PostgresConnection) throws -> Int {
        guard try connection.execute("SELECT to_regclass('bundlefs_schema') IS NOT NULL").scalar == "t" else { return 0 }
        return Int(try connection.execute("SELECT max(version) FROM bundlefs_schema").scalar ?? "0") ?? 0
    }
}
