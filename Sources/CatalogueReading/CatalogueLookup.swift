public import BundleModel
import GRDBSQLite
public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The catalogue opened for one command's few lookups, on one read-only connection without GRDB
/// (`LookupConnection`): `query` and `symbols`, which scripts run in loops and lldb once per UUID
/// of a crash. It asks what `Catalogue` asks, with the same SQL and the same row decoding, and
/// refuses the same files for the same reasons (missing, unreadable, not a catalogue, another
/// version, being created).
public final class CatalogueLookup {
    let connection: LookupConnection

    public init(path: FilePath, creationWait: Double = CatalogueFile.creationWait) throws {
        connection = try CatalogueFile.waitingForWriter(path, seconds: creationWait) { try Self.open(path) }
    }

    /// The bundles matching a query, by path (as `Catalogue.bundles(matching:)`).
    public func bundles(matching query: BundleQuery) throws -> [CataloguedBundle] {
        try connection.read { try CatalogueQueries.bundles(connection, matching: query) }
    }

    /// The archives' own errors, by archive (`Catalogue.archiveErrors(of:)`).
    public func archiveErrors(of archives: Set<FilePath>) throws -> [FilePath: String] {
        guard !archives.isEmpty else { return [:] }
        return try connection.read { try CatalogueQueries.archiveErrors(connection, of: archives) }
    }

    /// The slices with this UUID key, dSYMs first (`Catalogue.symbolMatches(uuidKey:)`).
    public func symbolMatches(uuidKey: String) throws -> [DebugSymbols.Match] {
        try connection.read { try CatalogueQueries.symbolMatchesByKey(connection, .key(uuidKey), under: nil)[uuidKey] ?? [] }
    }

    private static func open(_ path: FilePath) throws -> LookupConnection {
        // Missing, unreadable, not a file, not ours: said before SQLite opens it.
        try CatalogueFile.vet(path)
        do {
            do {
                let connection = try LookupConnection(path: path.string, uri: false)
                try checkSchema(connection, path: path)
                return connection
            } catch let failure as LookupConnection.Failure where [SQLITE_READONLY, SQLITE_CANTOPEN].contains(failure.primaryCode) {
                // A catalogue in a directory this user may not write: no -shm file for a WAL
                // reader, so the file is read as it is (as `Catalogue` does).
                let connection = try LookupConnection(path: CatalogueFile.immutableURI(path), uri: true)
                try checkSchema(connection, path: path)
                return connection
            }
        } catch let failure as LookupConnection.Failure {
            throw CatalogueError.notACatalogue(path: path.string, reason: failure.message,
                                               held: FileLock.isHeld(at: CatalogueFile.lockPath(catalogue: path)))
        }
    }

    /// The migrations the file has applied, judged as `Catalogue` judges them.
    private static func checkSchema(_ connection: LookupConnection, path: FilePath) throws {
        var applied: Set<String> = []
        try connection.read {
            var hasTable = false
            try connection.forEachRow("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'", []) { _ in hasTable = true }
            guard hasTable else { return }
            try connection.forEachRow("SELECT identifier FROM grdb_migrations", []) { row in applied.insert(row.text(0) ?? "") }
        }
        try CatalogueFile.checkVersion(applied: applied, path: path, complete: true)
    }
}
