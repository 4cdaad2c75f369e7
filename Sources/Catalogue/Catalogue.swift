public import GRDB
public import SystemCalls
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Why the catalogue could not be opened, in words a user can act on.
public enum CatalogueError: Error, CustomStringConvertible {
    case missing(path: String)
    case cannotCreate(path: String, reason: String)
    case unreadable(path: String, reason: String)
    case notACatalogue(path: String, reason: String)
    case newerVersion(path: String)

    public var description: String {
        switch self {
        case let .missing(path): "no catalogue at \(path); run `bundlefs index ROOT` first"
        case let .cannotCreate(path, reason): "cannot create the catalogue at \(path): \(reason)"
        case let .unreadable(path, reason): "cannot read the catalogue at \(path): \(reason)"
        case let .notACatalogue(path, reason): "\(path) is not a usable bundlefs catalogue (\(reason)); it is derived data, so deleting it loses nothing"
        case let .newerVersion(path): "\(path) was written by a newer bundlefs; use that version, or delete the file to rebuild it"
        }
    }
}

/// The SQLite catalogue: one file in WAL mode, so other processes read while one writes. A
/// running daemon keeps one open; when the file is deleted or replaced under it (`isStillAtItsPath`)
/// it opens the file at its path again (`reopen`), and readers see the new one from then on.
public final class Catalogue: Sendable {
    public let path: FilePath
    public let mode: Mode
    private let opened: Mutex<Opened>

    public enum Mode: Sendable { case readOnly, readWrite }

    private struct Opened: Sendable {
        var database: any DatabaseWriter
        /// The file opened, to notice another at the same path.
        var identity: FileIdentity?
    }

    /// Opens the catalogue, creating it (and its directory) when `mode` is `.readWrite`.
    public init(path: FilePath, mode: Mode) throws {
        self.path = path
        self.mode = mode
        opened = Mutex(try Self.open(path, mode: mode))
    }

    private static func open(_ path: FilePath, mode: Mode) throws -> Opened {
        let exists = (try? FileStatus.of(path, followSymlinks: true)) != nil
        switch mode {
        case .readOnly:
            guard exists else { throw CatalogueError.missing(path: path.string) }
            if (try? path.withCString({ access($0, R_OK) })) != 0 { throw CatalogueError.unreadable(path: path.string, reason: "permission denied") }
        case .readWrite where !exists:
            try createDirectory(path.parent)
            // It holds every Info dictionary (apps keep API keys there): its owner's only. SQLite
            // gives its -wal and -shm files the database file's mode.
            _ = try? Descriptor.open(path, flags: O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
        case .readWrite:
            break
        }
        let identity = (try? FileStatus.of(path, followSymlinks: true))?.identity
        do {
            let database = try DatabasePool(path: path.string, configuration: configuration(mode))
            try checkSchema(database, path: path, mode: mode)
            return Opened(database: database, identity: identity)
        } catch let error as DatabaseError where mode == .readOnly && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode) {
            // A catalogue the reader may read but not write, in a directory it may not write: SQLite
            // cannot make the -shm file a WAL reader needs. Read the file as it is instead (what a
            // running watcher has not checkpointed yet is not seen).
            let database = try DatabaseQueue(path: immutableURI(path), configuration: configuration(mode))
            try checkSchema(database, path: path, mode: mode)
            return Opened(database: database, identity: identity)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
            throw CatalogueError.cannotCreate(path: path.string, reason: reasonForOpenFailure(path))
        } catch let error as DatabaseError {
            throw CatalogueError.notACatalogue(path: path.string, reason: error.message ?? "\(error.resultCode)")
        }
    }

    /// Bytes of WAL file kept after a checkpoint: what 1,000 pages, SQLite's checkpoint interval, fill.
    static let walSizeLimit = 4 << 20

    private static func configuration(_ mode: Mode) -> Configuration {
        var configuration = Configuration()
        // Long enough for a reader's query or another index's batch; a daemon's writes that time
        // out are retried by the daemon itself, which says so.
        configuration.busyMode = .timeout(5)
        configuration.label = "bundlefs"
        configuration.readonly = mode == .readOnly
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                // The catalogue is derived data: durability on power loss matters less than speed,
                // and WAL with NORMAL still never corrupts on a crash.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Index runs write tens of thousands of rows per transaction: keep the pages in memory.
                try db.execute(sql: "PRAGMA cache_size = -16384")
                // SQLite reuses the WAL file rather than shrink it; a scan grows it to tens of
                // megabytes (`checkpointingSparsely`), which a daemon would otherwise keep.
                try db.execute(sql: "PRAGMA journal_size_limit = \(walSizeLimit)")
            }
        }
        return configuration
    }

    private static func checkSchema(_ database: any DatabaseWriter, path: FilePath, mode: Mode) throws {
        let migrator = Schema.migrator
        if try database.read({ try migrator.hasBeenSuperseded($0) }) { throw CatalogueError.newerVersion(path: path.string) }
        if mode == .readWrite {
            try migrator.migrate(database)
            // Dropped while a first index ran (`buildingUUIDIndexAfterwards`); a kill leaves it so.
            // Looked for first: most opens find it and need no write.
            if try database.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'binaries_by_uuid'") == 0 }) {
                try database.write { db in try db.execute(sql: uuidIndexSQL) }
            }
        } else if try database.read({ try !migrator.hasCompletedMigrations($0) }) {
            throw CatalogueError.notACatalogue(path: path.string, reason: "its schema is not bundlefs's")
        }
    }

    /// `file:PATH?immutable=1`, with the characters a URI gives meaning to escaped.
    private static func immutableURI(_ path: FilePath) -> String {
        var escaped = ""
        for byte in path.bytes {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0x00...0x20, 0x7F...0xFF:
                escaped += "%" + String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            default:
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return "file:" + escaped + "?immutable=1"
    }

    /// The identity of the file opened, to notice another at the same path.
    var openedIdentity: FileIdentity? { opened.withLock { $0.identity } }

    /// Opens the file at the path again, for `reopen`.
    func replaceDatabase() throws {
        let fresh = try Self.open(path, mode: mode)
        opened.withLock { $0 = fresh }
    }

    /// The default location: `$BUNDLEFS_CATALOGUE`, else `$XDG_CACHE_HOME/bundlefs/catalogue.sqlite`,
    /// else `~/.cache/bundlefs/catalogue.sqlite`.
    public static func defaultPath(environment: [String: String]) -> FilePath {
        if let explicit = environment["BUNDLEFS_CATALOGUE"], !explicit.isEmpty { return FilePath(explicit) }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return FilePath(cache + "/bundlefs/catalogue.sqlite") }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        return FilePath(home).appending(FilePath(".cache/bundlefs/catalogue.sqlite"))
    }

    static func createDirectory(_ directory: FilePath) throws {
        var current = FilePath.root
        for component in directory.components {
            current = current.appending(component)
            let result = try current.withCString { mkdir($0, 0o700) }
            if result != 0 && errno != EEXIST {
                throw CatalogueError.cannotCreate(path: directory.string, reason: String(cString: strerror(errno)))
            }
        }
    }

    static func reasonForOpenFailure(_ path: FilePath) -> String {
        let directory = path.parent
        if (try? FileStatus.of(directory, followSymlinks: true)) == nil { return "\(directory) does not exist" }
        if (try? directory.withCString({ access($0, W_OK) })) != 0 { return "\(directory) is not writable" }
        return "SQLite cannot open it"
    }

    var database: any DatabaseWriter { opened.withLock { $0.database } }

    /// Runs a read on a snapshot of the catalogue.
    public func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }

    /// Runs writes in one transaction.
    public func write<T>(_ body: (Database) throws -> T) throws -> T { try database.write(body) }

    /// Hands back SQLite's page caches (the writer's fills up to 16 MiB during an index, and a
    /// daemon needs few of those pages afterwards) and closes idle readers.
    public func releaseMemory() {
        switch database {
        case let pool as DatabasePool: pool.releaseMemory()
        case let queue as DatabaseQueue: queue.releaseMemory()
        default: break
        }
    }
}
