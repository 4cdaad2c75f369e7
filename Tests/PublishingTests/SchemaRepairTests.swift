import Foundation
import Publishing
import Testing
import TestSupport

/// The PostgreSQL schema made again when it was damaged (issue 37): what a publisher's check finds
/// and does, on a real PostgreSQL.
struct SchemaRepairTests {
    static let tables = ["bundlefs_schema", "bundlefs_hosts", "bundlefs_bundles", "bundlefs_binaries", "bundlefs_publishers",
                         "bundlefs_launch_claims", "bundlefs_type_tags", "bundlefs_name_words"]

    /// The bundlefs tables there, and the foreign keys between them (which a table dropped with
    /// CASCADE takes from the others).
    static func shape(_ server: PostgresServer) throws -> String {
        try server.psql("""
            SELECT (SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'bundlefs\\_%'),
                   (SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'bundlefs\\_%'),
                   (SELECT string_agg(version::text, ',' ORDER BY version) FROM bundlefs_schema)
            """)
    }

    /// A whole schema is only read: on a database that refuses every write, the check passes.
    @Test func aWholeSchemaIsNotWritten() throws {
        let server = try PostgresServer()
        let first = try PublishedCatalogue(url: server.url)
        #expect(first.schemaChange == "created the bundlefs schema (version 5)")
        try server.psql("ALTER DATABASE postgres SET default_transaction_read_only = on")
        let reader = try PublishedCatalogue(url: server.url)
        #expect(reader.schemaChange == nil)
        #expect(try reader.ensureSchema() == nil)
    }

    /// One table dropped, `bundlefs_schema` emptied or dropped, a later version's table left
    /// beside an older schema: every bundlefs table is made again, with its foreign keys.
    @Test(arguments: [
        "DROP TABLE bundlefs_binaries",
        "DROP TABLE bundlefs_bundles CASCADE",
        "TRUNCATE bundlefs_schema",
        "DROP TABLE bundlefs_schema",
        "DELETE FROM bundlefs_schema WHERE version >= 3",
    ])
    func aDamagedSchemaIsMadeAgain(damage: String) throws {
        let server = try PostgresServer()
        let publisher = try PublishedCatalogue(url: server.url)
        let whole = try Self.shape(server)
        #expect(whole.hasSuffix("|1,2,3,4,5"), "\(whole)")
        try server.psql("INSERT INTO bundlefs_hosts VALUES ('alpha', 'x', 0, 0, now(), now(), 5)")
        try server.psql(damage)
        let change = try publisher.ensureSchema()
        #expect(change?.hasPrefix("created the bundlefs schema again (its tables are not those of version") == true, "\(String(describing: change))")
        #expect(try Self.shape(server) == whole)
        #expect(try server.psql("SELECT count(*) FROM bundlefs_hosts") == "0")
        #expect(try publisher.ensureSchema() == nil)
    }

    /// A view of the user's own on a bundlefs table is never dropped with it: the rebuild fails,
    /// PostgreSQL's message names the view, and nothing is dropped.
    @Test func aRebuildKeepsTheUsersViews() throws {
        let server = try PostgresServer()
        let publisher = try PublishedCatalogue(url: server.url)
        try server.psql("CREATE VIEW my_apps AS SELECT host, name FROM bundlefs_bundles; DROP TABLE bundlefs_binaries")
        let error = #expect(throws: PostgresError.self) { try publisher.ensureSchema() }
        #expect(error?.message.contains("my_apps") == true, "\(String(describing: error))")
        #expect(try server.psql("SELECT count(*) FROM pg_views WHERE viewname = 'my_apps'") == "1")
        #expect(try server.psql("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'bundlefs\\_%'") == "7")
        try server.psql("DROP VIEW my_apps")
        #expect(try publisher.ensureSchema()?.contains("missing bundlefs_binaries") == true)
    }

    /// The schema dropped with everything in it: created again, not called damaged.
    @Test func aDroppedSchemaIsCreatedAgain() throws {
        let server = try PostgresServer()
        let publisher = try PublishedCatalogue(url: server.url)
        let whole = try Self.shape(server)
        try server.psql("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        #expect(try publisher.ensureSchema() == "created the bundlefs schema (version 5)")
        #expect(try Self.shape(server) == whole)
    }
}
