import BundleModel
import GRDB

/// The catalogue's schema, one migration per version. Docs/catalogue.md describes every table
/// for people who query it with `sqlite3`; keep the two in step.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE roots (
                    path TEXT PRIMARY KEY,
                    last_indexed_at REAL
                ) WITHOUT ROWID;

                CREATE TABLE directories (
                    path TEXT PRIMARY KEY,
                    change_time INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    extension TEXT,
                    trusted INTEGER NOT NULL,
                    sidecar TEXT
                ) WITHOUT ROWID;
                CREATE INDEX directories_by_extension ON directories(extension) WHERE extension IS NOT NULL;

                CREATE TABLE bundles (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    identifier TEXT,
                    kind TEXT NOT NULL,
                    is_package INTEGER NOT NULL,
                    package_reasons TEXT NOT NULL,
                    is_bundle INTEGER NOT NULL,
                    layout TEXT,
                    info_bundle_name TEXT,
                    info_display_name TEXT,
                    version TEXT,
                    short_version TEXT,
                    numeric_version INTEGER NOT NULL,
                    package_type TEXT,
                    signature TEXT,
                    executable_name TEXT,
                    executable TEXT,
                    development_region TEXT,
                    declared_localizations TEXT NOT NULL,
                    localizations TEXT NOT NULL,
                    strings_tables TEXT NOT NULL,
                    info_file TEXT,
                    info_format TEXT,
                    info TEXT NOT NULL,
                    resources_directory TEXT,
                    finder_flags INTEGER,
                    finder_info_source TEXT,
                    document_types TEXT,
                    type_declarations TEXT,
                    stamps TEXT NOT NULL,
                    error_count INTEGER NOT NULL,
                    warning_count INTEGER NOT NULL,
                    scanned_at REAL NOT NULL
                );
                CREATE INDEX bundles_by_identifier ON bundles(identifier COLLATE NOCASE);

                CREATE TABLE localized_strings (
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    localization TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (bundle_id, localization, key)
                ) WITHOUT ROWID;

                CREATE TABLE problems (
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    severity TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
                    message TEXT NOT NULL
                );
                CREATE INDEX problems_by_bundle ON problems(bundle_id);

                CREATE TABLE claims (
                    application_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    extension TEXT NOT NULL,
                    content_type TEXT
                );
                CREATE INDEX claims_by_extension ON claims(extension);
                CREATE INDEX claims_by_application ON claims(application_id);
                """)
        }
        migrator.registerMigration("v2") { db in
            // What a running watcher reports; one row, rewritten every few seconds.
            try db.execute(sql: """
                CREATE TABLE watch_status (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    pid INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    roots TEXT NOT NULL,
                    started_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    watched_directories INTEGER NOT NULL,
                    unwatched_directories INTEGER NOT NULL,
                    overflows INTEGER NOT NULL,
                    rescans INTEGER NOT NULL,
                    events INTEGER NOT NULL,
                    batches INTEGER NOT NULL,
                    pending INTEGER NOT NULL,
                    last_event_at REAL,
                    last_batch_at REAL
                );
                """)
        }
        migrator.registerMigration("v3") { db in
            // The raw Info dictionary whole, as a binary property list: `info` (JSON) keeps dates
            // and data only as strings. Rows written before cannot be completed without reading
            // their bundles again, and the catalogue is derived data: the next run rebuilds it.
            try db.execute(sql: """
                ALTER TABLE bundles ADD COLUMN info_plist BLOB;
                """)
            try clearDerivedRows(db)
        }
        migrator.registerMigration("v4") { db in
            // A framework that lost its Versions/Current link searches its version's Resources too.
            // Rows written before lack it: the catalogue is derived data, the next run rebuilds it.
            try db.execute(sql: """
                ALTER TABLE bundles ADD COLUMN version_resources_directory TEXT;
                """)
            try clearDerivedRows(db)
        }
        migrator.registerMigration("v5") { db in
            // The icon file rule 21 finds. Rebuilt like v3 and v4: older rows never looked for it.
            try db.execute(sql: """
                ALTER TABLE bundles ADD COLUMN icon TEXT;
                """)
            try clearDerivedRows(db)
        }
        migrator.registerMigration("v6") { db in
            // The headers of executables and dSYMs' DWARF files (rule 24): one row per Mach-O slice
            // or ELF file, found by UUID (lower-case hex, no hyphens) through an index. Rebuilt
            // like v3: older rows never read them.
            try db.execute(sql: """
                CREATE TABLE binaries (
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    slice INTEGER NOT NULL,
                    file TEXT NOT NULL,
                    format TEXT NOT NULL,
                    arch TEXT NOT NULL,
                    file_type TEXT NOT NULL,
                    uuid TEXT,
                    uuid_key TEXT,
                    platform TEXT,
                    min_os TEXT,
                    sdk TEXT,
                    signature TEXT NOT NULL,
                    signing_identifier TEXT,
                    team_identifier TEXT,
                    PRIMARY KEY (bundle_id, slice)
                ) WITHOUT ROWID;
                CREATE INDEX binaries_by_uuid ON binaries(uuid_key) WHERE uuid_key IS NOT NULL;
                """)
            try clearDerivedRows(db)
        }
        migrator.registerMigration("v7") { db in
            // Bundles inside archives (rule 26): a bundle row names its archive and its path in it
            // (its `path` is the two joined: a key, not a path on disk); each archive read has a row
            // for the next run to tell whether it changed. Loose rows are complete as they are.
            try db.execute(sql: """
                ALTER TABLE bundles ADD COLUMN archive TEXT;
                ALTER TABLE bundles ADD COLUMN member TEXT;
                CREATE TABLE archives (
                    path TEXT PRIMARY KEY,
                    directory TEXT NOT NULL,
                    change_time INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    members INTEGER NOT NULL,
                    error TEXT
                ) WITHOUT ROWID;
                CREATE INDEX archives_by_directory ON archives(directory);
                """)
        }
        migrator.registerMigration("v8") { db in
            // Publishing to PostgreSQL (SPEC "Many hosts"): while `publication` has its row, every
            // change of a bundle row is queued in `outbox` by triggers, in the transaction that makes
            // it, so no writer can forget one and a crash loses none. `identity` tells PostgreSQL
            // which catalogue a host's rows came from: a new catalogue file is sent whole.
            try db.execute(sql: """
                CREATE TABLE identity (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    catalogue TEXT NOT NULL
                );
                INSERT INTO identity (id, catalogue) VALUES (1, lower(hex(randomblob(16))));
                CREATE TABLE publication (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    destination TEXT NOT NULL,
                    host TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    sent_through INTEGER NOT NULL DEFAULT 0,
                    last_sent_at REAL,
                    last_whole_at REAL,
                    last_error TEXT,
                    last_error_at REAL,
                    updated_at REAL NOT NULL
                );
                CREATE TABLE outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    path TEXT NOT NULL,
                    queued_at REAL NOT NULL
                );
                CREATE TRIGGER outbox_on_insert AFTER INSERT ON bundles WHEN EXISTS (SELECT 1 FROM publication)
                BEGIN
                    INSERT INTO outbox (path, queued_at) VALUES (NEW.path, (julianday('now') - 2440587.5) * 86400.0);
                END;
                CREATE TRIGGER outbox_on_delete AFTER DELETE ON bundles WHEN EXISTS (SELECT 1 FROM publication)
                BEGIN
                    INSERT INTO outbox (path, queued_at) VALUES (OLD.path, (julianday('now') - 2440587.5) * 86400.0);
                END;
                CREATE TRIGGER outbox_on_update AFTER UPDATE ON bundles WHEN EXISTS (SELECT 1 FROM publication)
                BEGIN
                    INSERT INTO outbox (path, queued_at) SELECT OLD.path, (julianday('now') - 2440587.5) * 86400.0 WHERE OLD.path != NEW.path;
                    INSERT INTO outbox (path, queued_at) VALUES (NEW.path, (julianday('now') - 2440587.5) * 86400.0);
                END;
                """)
        }
        migrator.registerMigration("v9") { db in
            // `binaries.uuid` repeated `uuid_key` in another spelling (36 bytes a slice, written for
            // every slice of a first index); the spelling is derived from the key and the format.
            try db.execute(sql: "ALTER TABLE binaries DROP COLUMN uuid")
        }
        migrator.registerMigration("v10") { db in
            // The status row holds what the watcher publishes: the problem too (one record, `WatchStatus`).
            try db.execute(sql: """
                ALTER TABLE watch_status ADD COLUMN problem TEXT;
                ALTER TABLE watch_status ADD COLUMN problem_since REAL;
                """)
        }
        migrator.registerMigration("v11") { db in
            // Rules 28 and 29: what installed applications claim and the types they declare, found
            // by what is asked (a type, an extension, a MIME type, a scheme) through indexes.
            // A claim's rows are ordered by what they claim (a WITHOUT ROWID table: an answer reads
            // only them), and installed applications' path, identifier and version have an index of
            // their own: a join to the wide `bundles` rows read a page of the table per handler,
            // which at 50,000 applications made an answer of thousands of handlers take 30 ms.
            // Filled from the rows already there: the whole Info dictionary is kept, and type
            // declarations are read from it again so that they gain their MIME types.
            try db.execute(sql: """
                CREATE TABLE launch_claims (
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    target_kind TEXT NOT NULL,
                    target TEXT NOT NULL,
                    role TEXT NOT NULL,
                    rank TEXT NOT NULL,
                    PRIMARY KEY (target_kind, target, bundle_id, role, rank)
                ) WITHOUT ROWID;
                CREATE INDEX launch_claims_by_bundle ON launch_claims(bundle_id);
                CREATE INDEX bundles_for_launch ON bundles(id, kind, archive, path, identifier, version)
                    WHERE kind = 'application' AND archive IS NULL;
                CREATE TABLE type_tags (
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    value TEXT NOT NULL,
                    type_key TEXT NOT NULL
                );
                CREATE INDEX type_tags_by_value ON type_tags(kind, value);
                CREATE INDEX type_tags_by_bundle ON type_tags(bundle_id);
                """)
            // Claims are filled by v12, in the layout it gives them.
            let tag = try RawStatement(db, LaunchRows.insertTagSQL)
            let declarations = try RawStatement(db, "UPDATE bundles SET type_declarations = ? WHERE id = ?")
            for var application in try installedApplications(db) {
                application.record.typeDeclarations = TypeDeclaration.parse(application.record.infoDictionary)
                let declared = application.record.typeDeclarations
                declarations.bind(1, declared.isEmpty ? nil : TypeDeclarationCoding.encode(declared))
                declarations.bind(2, application.id)
                try declarations.execute()
                try LaunchRows.writeTags(application.record, id: application.id, tag: tag)
            }
        }
        migrator.registerMigration("v12") { db in
            // Rule 30 at 50,000 applications: an answer of thousands of handlers read a bundle row
            // (or an index entry of its own) per handler, then sorted them by path. A claim now
            // carries what an answer shows and ranks by: the application's path, identifier and
            // version. The rows of one target come in path order (the last tie-break), so an
            // answer merges those of its few targets instead of sorting, and reads no other table.
            try db.execute(sql: """
                DROP INDEX bundles_for_launch;
                DROP TABLE launch_claims;
                CREATE TABLE launch_claims (
                    target_kind TEXT NOT NULL,
                    target TEXT NOT NULL,
                    path TEXT NOT NULL,
                    role TEXT NOT NULL,
                    rank TEXT NOT NULL,
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    identifier TEXT,
                    version TEXT,
                    PRIMARY KEY (target_kind, target, path, role, rank)
                ) WITHOUT ROWID;
                CREATE INDEX launch_claims_by_bundle ON launch_claims(bundle_id);
                """)
            // Filled by v13, in the layout it gives them.
        }
        migrator.registerMigration("v13") { db in
            // Rule 30 at 50,000 applications, again: merging claims in path order still left every
            // answer to be sorted by rank and version, splitting versions as it went. A claim now
            // carries its rank's order and its application's version as a byte key
            // (`BundleVersion.Key`), and a target's rows come in the answer's order: rank, newest
            // version, path. An answer merges its targets' rows and is done; its first handler,
            // the default application, is read without reading the others.
            try db.execute(sql: """
                DROP TABLE launch_claims;
                CREATE TABLE launch_claims (
                    target_kind TEXT NOT NULL,
                    target TEXT NOT NULL,
                    rank_order INTEGER NOT NULL,
                    version_key BLOB NOT NULL,
                    path TEXT NOT NULL,
                    role TEXT NOT NULL,
                    rank TEXT NOT NULL,
                    bundle_id INTEGER NOT NULL REFERENCES bundles(id) ON DELETE CASCADE,
                    identifier TEXT,
                    version TEXT,
                    PRIMARY KEY (target_kind, target, rank_order, version_key DESC, path, role)
                ) WITHOUT ROWID;
                CREATE INDEX launch_claims_by_bundle ON launch_claims(bundle_id);
                """)
            // Filled by v16, in the layout it gives them.
        }
        migrator.registerMigration("v14") { db in
            // Rule 34: a Time Machine backup's record says what its files say. A `.sparsebundle`
            // catalogued before was read as a plain bundle: its row goes and its directory looks
            // changed, so the next index or watcher start lists and reads it again (the catalogue
            // is derived data).
            // Their child rows go first: GRDB runs migrations with foreign keys off (nothing
            // cascades) and checks them before committing.
            try db.execute(sql: """
                ALTER TABLE bundles ADD COLUMN backup TEXT;
                UPDATE directories SET change_time = -1 WHERE extension = 'sparsebundle';
                CREATE TEMP TABLE v14_reread AS SELECT id FROM bundles WHERE archive IS NULL AND lower(name) LIKE '%.sparsebundle';
                DELETE FROM localized_strings WHERE bundle_id IN (SELECT id FROM v14_reread);
                DELETE FROM problems WHERE bundle_id IN (SELECT id FROM v14_reread);
                DELETE FROM binaries WHERE bundle_id IN (SELECT id FROM v14_reread);
                DELETE FROM type_tags WHERE bundle_id IN (SELECT id FROM v14_reread);
                """)
            // v16 replaces the table (a test runs v14 again on a later schema).
            if try db.tableExists("launch_claims") { try db.execute(sql: "DELETE FROM launch_claims WHERE bundle_id IN (SELECT id FROM v14_reread)") }
            try db.execute(sql: "DELETE FROM claims WHERE application_id IN (SELECT id FROM v14_reread); DELETE FROM bundles WHERE id IN (SELECT id FROM v14_reread); DROP TABLE v14_reread")
        }
        migrator.registerMigration("v15") { db in
            // Rule 33: an installer's payload is opened, and its bundles say which component
            // installs them and where. Installer packages catalogued before were read without
            // their payloads: their stamps are spoiled, so the next index or watcher start reads
            // them again and replaces their bundles (the catalogue is derived data).
            try db.execute(sql: """
                ALTER TABLE bundles ADD COLUMN installs_to TEXT;
                ALTER TABLE bundles ADD COLUMN component TEXT;
                UPDATE archives SET change_time = -1 WHERE lower(path) LIKE '%.pkg';
                """)
        }
        migrator.registerMigration("v16") { db in
            // Rule 30 at 50,000 applications, a third time: a row per claim cost 9 MB of table and
            // index for 36,000 claims (a seventh of a first index's time) and an answer stepped
            // a row per claim (17,000 for a type many conform to). An application's claims are now
            // packed into its row, and each target's handlers are one blob in the answer's order
            // (`launch_lists`), kept equal to the rows by triggers and `LaunchLists.settle`.
            try db.execute(sql: """
                DROP TABLE launch_claims;
                ALTER TABLE bundles ADD COLUMN launch_claims BLOB;
                """)
            let packed = try RawStatement(db, "UPDATE bundles SET launch_claims = ? WHERE id = ?")
            for application in try installedApplications(db) {
                if let claims = ApplicationClaims.encode(application.record) { packed.bind(1, bytes: claims) } else { packed.bind(1, nil as Int64?) }
                packed.bind(2, application.id)
                try packed.execute()
            }
            try db.execute(sql: LaunchLists.schemaSQL)
            try db.execute(sql: LaunchLists.insertTriggerSQL)
            try LaunchLists.rebuild(db)
        }
        migrator.registerMigration("v17") { db in
            // Issue 37: a symbol store serves only the file the indexer read, unchanged. Each
            // slice keeps that file as read: its path with every link resolved (relative to the
            // bundle), device, inode, size and modification time (ns). Rows written before have
            // none and are not served; their bundles' directories look changed, so the next index
            // or watcher start reads them again and fills them (the catalogue is derived data).
            try db.execute(sql: """
                ALTER TABLE binaries ADD COLUMN disk_path TEXT;
                ALTER TABLE binaries ADD COLUMN device INTEGER;
                ALTER TABLE binaries ADD COLUMN inode INTEGER;
                ALTER TABLE binaries ADD COLUMN size INTEGER;
                ALTER TABLE binaries ADD COLUMN modification_time INTEGER;
                UPDATE directories SET change_time = -1 WHERE path IN (
                    SELECT b.path FROM bundles b WHERE b.archive IS NULL AND EXISTS (SELECT 1 FROM binaries x WHERE x.bundle_id = b.id));
                """)
        }
        migrator.registerMigration("v18") { _ in
            // Issue 40: serve-web's word search scanned the wide bundles table (80 MB at 50,000
            // bundles, 60 ms a search); v18 made each bundle's names, one a line, a narrow table to
            // scan. v19 replaces it (dropping it where v18 made it): a catalogue from before skips it.
        }
        migrator.registerMigration("v19") { db in
            // Issue 40: the scan of v18's table was p99 108 ms at 50,000 bundles. A row per name
            // and SQLite's FTS5 trigram index of them: a word reads only the names holding it.
            try db.execute(sql: BundleNames.v18DropSQL)
            try db.execute(sql: BundleNames.tableSQL)
            try db.execute(sql: BundleNames.fillSQL)
            try db.execute(sql: BundleNames.triggersSQL)
        }
        migrator.registerMigration("v20") { db in
            // Issue 41: the row holds the backend fields the watcher publishes (one record,
            // `WatchStatus`): readers of the catalogue alone see how the tree is watched.
            try db.execute(sql: """
                ALTER TABLE watch_status ADD COLUMN backend TEXT;
                ALTER TABLE watch_status ADD COLUMN inotify_subtrees TEXT NOT NULL DEFAULT '[]';
                ALTER TABLE watch_status ADD COLUMN events_outside INTEGER NOT NULL DEFAULT 0;
                """)
        }
        return migrator
    }

    /// The rows Launch Services' migrations fill from: installed applications (rule 26), with what
    /// claims and tags are made of. Named columns, not the current row's: a later migration's
    /// columns do not exist yet when these run.
    static func installedApplications(_ db: Database) throws -> [CataloguedBundle] {
        let columns = ["path", "kind", "archive", "info", "info_plist", "type_declarations"]
        return try Row.fetchAll(db, sql: "SELECT id, \(columns.joined(separator: ", ")) FROM bundles WHERE kind = 'application' AND archive IS NULL")
            .map { row in CataloguedBundle(id: row[0], record: BundleRow.record(from: row, columns: columns)) }
    }

    /// Empties every table a new column cannot be filled in for without reading the bundles
    /// again; the next index or watcher start rebuilds them (the catalogue is derived data). The
    /// child tables go first: GRDB runs migrations with foreign keys off, so nothing cascades, and
    /// its check afterwards would refuse rows left pointing at deleted bundles.
    static func clearDerivedRows(_ db: Database) throws {
        if try db.tableExists("binaries") { try db.execute(sql: "DELETE FROM binaries") }
        if try db.tableExists("launch_claims") { try db.execute(sql: "DELETE FROM launch_claims") }
        if try db.tableExists("launch_lists") { try db.execute(sql: "DELETE FROM launch_lists; DELETE FROM launch_changes") }
        if try db.tableExists("type_tags") { try db.execute(sql: "DELETE FROM type_tags") }
        if try db.tableExists("archives") { try db.execute(sql: "DELETE FROM archives") }
        try db.execute(sql: """
            DELETE FROM localized_strings;
            DELETE FROM problems;
            DELETE FROM claims;
            DELETE FROM bundles;
            DELETE FROM directories;
            DELETE FROM roots;
            """)
    }
}
