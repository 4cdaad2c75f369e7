@_exported public import CatalogueReading
import Codecs
import GRDB
import GRDBSQLite
public import SystemCalls
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite catalogue: one file in WAL mode, so other processes read while one writes. A
/// running daemon keeps one open; when the file is deleted or replaced under it (`isStillAtItsPath`)
/// it opens the file at its path again (`reopen`), and readers see the new one from then on.
public final class Catalogue: Sendable {
    public let path: FilePath
    public let mode: Mode
    /// How long a write waits for another process's lock (an `sqlite3` shell in a transaction,
    /// another index) before it fails with SQLITE_BUSY.
    public let lockWait: Double
    private let opened: Mutex<Opened>

    public enum Mode: Sendable { case readOnly, readWrite }

    private struct Opened: Sendable {
        /// Nil after the file was let go of (`reopen`) until one at the path opens.
        var database: (any DatabaseWriter)?
        /// The file opened, to notice another at the same path.
        var identity: FileIdentity?
    }

    /// Opens the catalogue, creating it (and its directory) when `mode` is `.readWrite`. A reader
    /// waits up to `creationWait` seconds for one another process is creating or migrating.
    public init(path: FilePath, mode: Mode, creationWait: Double = Catalogue.creationWait, lockWait: Double = Catalogue.lockWait) throws {
        self.path = path
        self.mode = mode
        self.lockWait = lockWait
        opened = Mutex(try Self.open(path, mode: mode, creationWait: creationWait, lockWait: lockWait))
    }

    /// A catalogue of nothing, in memory: for a server whose pages read a fleet's database and
    /// that has no local catalogue (`serve-web --database`), so that the local routes find nothing.
    public static func empty() throws -> Catalogue {
        let database = try DatabaseQueue()
        try Schema.migrator.migrate(database)
        return Catalogue(path: FilePath(":memory:"), mode: .readOnly, opened: Opened(database: database, identity: nil))
    }

    private init(path: FilePath, mode: Mode, opened: Opened) {
        self.path = path
        self.mode = mode
        lockWait = Self.lockWait
        self.opened = Mutex(opened)
    }

    /// How long a command's write waits for another process's lock: long enough for another
    /// index's batch.
    public static let lockWait = 5.0

    /// A daemon's: while its write waits, the watcher's loop does not turn and the view does not
    /// follow the tree; a write that fails is a fault whose retry finds from the tree what it missed.
    public static let daemonLockWait = 1.0

    private static func open(_ path: FilePath, mode: Mode, creationWait: Double = Catalogue.creationWait, lockWait: Double) throws -> Opened {
        switch mode {
        case .readOnly:
            return try CatalogueFile.waitingForWriter(path, seconds: creationWait) { try openExisting(path, mode: .readOnly, lockWait: lockWait) }
        case .readWrite:
            // Judged before anything is made beside it (a lock file) or SQLite opens it to write.
            if (try? FileStatus.of(path, followSymlinks: true)) != nil { try CatalogueFile.vet(path) }
            try createDirectory(path.parent)
            // Held while the file is created or migrated, so that readers wait rather than find
            // it half made; nil when another process holds it (a running watcher), which is fine.
            let writing = try? FileLock(path: lockPath(catalogue: path))
            return try withExtendedLifetime(writing) {
                if (try? FileStatus.of(path, followSymlinks: true)) == nil { try createWhole(path) }
                return try openExisting(path, mode: .readWrite, lockWait: lockWait, holdingLock: writing != nil)
            }
        }
    }

    /// `holdingLock`: this process holds the catalogue's lock, so nobody else is running on it.
    /// A reader's file is judged here (missing, unreadable, not ours); a writer's was judged by
    /// `open` before it made anything beside it, or was just made by `createWhole`.
    private static func openExisting(_ path: FilePath, mode: Mode, lockWait: Double, holdingLock: Bool = false) throws -> Opened {
        let status: FileStatus
        if mode == .readOnly {
            status = try CatalogueFile.vet(path)
        } else {
            guard let found = try? FileStatus.of(path, followSymlinks: true) else { throw CatalogueError.missing(path: path.string) }
            status = found
        }
        let identity = status.identity
        do {
            let database = try DatabasePool(path: path.string, configuration: configuration(mode, lockWait: lockWait))
            try checkSchema(database, path: path, mode: mode)
            return Opened(database: database, identity: identity)
        } catch let error as DatabaseError where mode == .readOnly && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode) {
            // A catalogue the reader may read but not write, in a directory it may not write: SQLite
            // cannot make the -shm file a WAL reader needs. Read the file as it is instead (what a
            // running watcher has not checkpointed yet is not seen).
            let database = try DatabaseQueue(path: CatalogueFile.immutableURI(path), configuration: configuration(mode, lockWait: lockWait))
            try checkSchema(database, path: path, mode: mode)
            return Opened(database: database, identity: identity)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
            throw CatalogueError.cannotCreate(path: path.string, reason: reasonForOpenFailure(path))
        } catch let error as DatabaseError {
            throw CatalogueError.notACatalogue(path: path.string, reason: error.message ?? "\(error.resultCode)",
                                               held: !holdingLock && FileLock.isHeld(at: lockPath(catalogue: path)))
        }
    }

    /// How long a reader waits for a catalogue another process is creating or migrating.
    public static let creationWait = CatalogueFile.creationWait

    /// How many times readers in this process have waited for the creator of the catalogue at `path`.
    package static func readerWaits(at path: FilePath) -> Int { CatalogueFile.writerWaits(at: path) }

    /// Makes the catalogue in a file beside it and links it into place whole: a reader finds either
    /// no catalogue or a complete one, never one half made; of two processes creating it at once,
    /// the first link wins and both use that file.
    private static func createWhole(_ path: FilePath) throws {
        removeAbandonedCreations(beside: path)
        let temporary = FilePath(path.string + ".new-\(getpid())")
        defer { removeDatabaseFiles(temporary) }
        do {
            removeDatabaseFiles(temporary)
            // It holds every Info dictionary (apps keep API keys there): its owner's only. SQLite
            // gives its -wal and -shm files the database file's mode.
            _ = try Descriptor.open(temporary, flags: O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
            let database = try DatabasePool(path: temporary.string, configuration: configuration(.readWrite, lockWait: Self.lockWait))
            try checkSchema(database, path: temporary, mode: .readWrite)
            // Everything into the file itself before it is linked: its WAL keeps the temporary
            // name and is removed with it (a pool's close left the schema there, so the linked
            // file was empty and was migrated again in place).
            _ = try database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try database.close()
        } catch {
            throw CatalogueError.cannotCreate(path: path.string, reason: "\((error as? DatabaseError)?.message ?? "\(error)")")
        }
        let linked = try temporary.withCString { from in try path.withCString { to in link(from, to) } }
        if linked != 0 && errno != EEXIST {
            throw CatalogueError.cannotCreate(path: path.string, reason: String(cString: strerror(errno)))
        }
    }

    /// The database file and the -wal and -shm files SQLite keeps beside it.
    static func removeDatabaseFiles(_ path: FilePath) {
        for suffix in ["", "-wal", "-shm"] { _ = try? FilePath(path.string + suffix).withCString { unlink($0) } }
    }

    /// What a creation killed before it linked its file left behind (`NAME.new-PID`).
    private static func removeAbandonedCreations(beside path: FilePath) {
        let prefix = path.lastComponent.string + ".new-"
        guard let entries = try? Descriptor.open(path.parent, flags: Descriptor.directoryNoFollow).listDirectory() else { return }
        for entry in entries where entry.name.string.hasPrefix(prefix) {
            guard let pid = Int32(entry.name.string.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            removeDatabaseFiles(path.parent.appending(entry.name))
        }
    }

    /// How much of the file a read-only connection maps (SQLite maps no more than the file holds).
    static let readerMapSize = CatalogueFile.readerMapSize

    /// A daemon's reader connections' page cache, in KiB.
    static let readerCacheKiB = 1_024

    /// Bytes of WAL file kept after a checkpoint: what 1,000 pages, SQLite's checkpoint interval, fill.
    static let walSizeLimit = 4 << 20

    private static func configuration(_ mode: Mode, lockWait: Double) -> Configuration {
        var configuration = Configuration()
        // Readers (which in WAL mode wait only for another process's brief recovery or
        // checkpoint) wait as long as a command's writes do; the writer's wait is set below.
        configuration.busyMode = .timeout(Self.lockWait)
        configuration.label = "bundlefs"
        configuration.readonly = mode == .readOnly
        configuration.prepareDatabase { db in
            if mode == .readOnly {
                // A reader (a command, a script's query) maps the file instead of copying every
                // page it reads into its own cache; the daemon, long-lived, reads through its cache.
                // By the catalogue's mode, not the connection's: a writer's pool reads through
                // connections of its own that are read-only too, and mapped, the pages a daemon
                // reads (every bundle's stamps, every application's claims) counted in its memory.
                try db.execute(sql: "PRAGMA mmap_size = \(readerMapSize)")
            } else if db.configuration.readonly {
                // A daemon's readers (the view's lookups and listings): the pages they read come
                // from the kernel's cache for a syscall each. With the writer's 16 MiB each, five
                // of them filled up to 80 MB as `ls -lR` walked a million entries' view.
                try db.execute(sql: "PRAGMA cache_size = -\(readerCacheKiB)")
            } else {
                // The writer waits `lockWait` (after GRDB set the busy mode: this replaces it); a
                // daemon's writes that time out are retried by the daemon itself, which says so.
                sqlite3_busy_timeout(db.sqliteConnection, Int32(lockWait * 1000))
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
        let applied = try database.read { db in try migrator.appliedIdentifiers(db) }
        try CatalogueFile.checkVersion(applied: applied, path: path, complete: mode == .readOnly)
        guard mode == .readWrite else { return }
        try migrator.migrate(database)
        // Dropped while a first index ran (`buildingIndexesAfterwards`); a kill leaves them so.
        // And the mark that tells the file is ours (`CatalogueFile.vet`), which catalogues of
        // earlier versions lack. Looked for first: most opens find both and need no write.
        let (needsIndexes, unmarked) = try database.read { db -> (Bool, Bool) in
            (try missesIndexes(db), try Int32.fetchOne(db, sql: "PRAGMA application_id") != CatalogueFile.applicationID)
        }
        if needsIndexes || unmarked {
            try database.write { db in
                if needsIndexes { try createMissingIndexes(db) }
                if unmarked { try db.execute(sql: "PRAGMA application_id = \(CatalogueFile.applicationID)") }
            }
        }
    }

    public static func lockPath(catalogue: FilePath) -> FilePath { CatalogueFile.lockPath(catalogue: catalogue) }

    /// The identity of the file opened, to notice another at the same path.
    var openedIdentity: FileIdentity? { opened.withLock { $0.identity } }

    /// Opens the file at the path again, for `reopen`.
    func replaceDatabase() throws {
        let fresh = try Self.open(path, mode: mode, lockWait: lockWait)
        opened.withLock { $0 = fresh }
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

    /// The database open now; a catalogue let go of (deleted under a daemon, not recreated yet)
    /// throws rather than answer from the deleted file.
    var database: any DatabaseWriter {
        get throws {
            guard let database = opened.withLock({ $0.database }) else { throw CatalogueError.beingRebuilt(path: path.string) }
            return database
        }
    }

    /// Runs a read on a snapshot of the catalogue (GRDB stays behind the catalogue's API; tests
    /// reach it with `@testable import`).
    func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }

    /// Closes the database (its connections go once the reads in flight end): the space of a
    /// deleted file comes back only then, which on a full disk is what makes room for a new one.
    func letGo() { opened.withLock { $0 = Opened(database: nil, identity: nil) } }

    /// Runs writes in one transaction; Launch Services' lists are mended before it commits (`LaunchLists`).
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try database.write { db in
            let result = try body(db)
            try LaunchLists.settle(db)
            return result
        }
    }

    /// Hands back SQLite's page caches (the writer's fills up to 16 MiB during an index, and a
    /// daemon needs few of those pages afterwards) and closes idle readers.
    public func releaseMemory() {
        switch try? database {
        case let pool as DatabasePool: pool.releaseMemory()
        case let queue as DatabaseQueue: queue.releaseMemory()
        default: break
        }
    }
}
