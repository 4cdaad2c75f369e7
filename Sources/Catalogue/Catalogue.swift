public import GRDB
public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Why the catalogue could not be opened, in words a user can act on.
public enum CatalogueError: Error, CustomStringConvertible {
    case missing(path: String)
    case cannotCreate(path: String, reason: String)
    case notACatalogue(path: String, reason: String)
    case newerVersion(path: String)

    public var description: String {
        switch self {
        case let .missing(path): "no catalogue at \(path); run `bundlefs index ROOT` first"
        case let .cannotCreate(path, reason): "cannot create the catalogue at \(path): \(reason)"
        case let .notACatalogue(path, reason): "\(path) is not a usable bundlefs catalogue (\(reason)); it is derived data, so deleting it loses nothing"
        case let .newerVersion(path): "\(path) was written by a newer bundlefs; use that version, or delete the file to rebuild it"
        }
    }
}

/// The SQLite catalogue: one file in WAL mode, so other processes read while one writes.
public final class Catalogue: Sendable {
    public let path: FilePath
    let pool: DatabasePool

    public enum Mode: Sendable { case readOnly, readWrite }

    /// Opens the catalogue, creating it (and its directory) when `mode` is `.readWrite`.
    public init(path: FilePath, mode: Mode) throws {
        self.path = path
        let exists = (try? FileStatus.of(path, followSymlinks: true)) != nil
        if mode == .readOnly && !exists { throw CatalogueError.missing(path: path.string) }
        if mode == .readWrite && !exists { try Self.createDirectory(path.parent) }
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.label = "bundlefs"
        configuration.readonly = mode == .readOnly
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                // The catalogue is derived data: durability on power loss matters less than speed,
                // and WAL with NORMAL still never corrupts on a crash.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Index runs write tens of thousands of rows per transaction: keep the pages in memory.
                try db.execute(sql: "PRAGMA cache_size = -65536")
            }
        }
        do {
            pool = try DatabasePool(path: path.string, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
            throw CatalogueError.cannotCreate(path: path.string, reason: Self.reasonForOpenFailure(path))
        } catch let error as DatabaseError {
            throw CatalogueError.notACatalogue(path: path.string, reason: error.message ?? "\(error.resultCode)")
        }
        do {
            let migrator = Schema.migrator
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) { throw CatalogueError.newerVersion(path: path.string) }
            if mode == .readWrite {
                try migrator.migrate(pool)
            } else if try pool.read({ try !migrator.hasCompletedMigrations($0) }) {
                throw CatalogueError.notACatalogue(path: path.string, reason: "its schema is not bundlefs's")
            }
        } catch let error as DatabaseError {
            throw CatalogueError.notACatalogue(path: path.string, reason: error.message ?? "\(error.resultCode)")
        }
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
            let result = try current.withCString { mkdir($0, 0o755) }
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

    /// Runs a read on a snapshot of the catalogue.
    public func read<T>(_ body: (Database) throws -> T) throws -> T { try pool.read(body) }

    /// Runs writes in one transaction.
    public func write<T>(_ body: (Database) throws -> T) throws -> T { try pool.write(body) }
}
