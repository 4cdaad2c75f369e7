import Codecs
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
    /// A FIFO, a directory, a device: never opened as a database.
    case notAFile(path: String, type: FileType)
    /// Not a SQLite database at all (a text file, an empty file).
    case notSQLite(path: String, empty: Bool)
    /// A SQLite database bundlefs did not make: never written, never called derived data.
    /// `applicationID` is its header's mark, 0 for none.
    case foreign(path: String, applicationID: Int32)
    /// `held`: a running bundlefs holds the file, so deleting it is not the advice.
    case notACatalogue(path: String, reason: String, held: Bool)
    /// `found`: the newest migration the file has that this version does not know (`v18`).
    case newerVersion(path: String, found: String)
    /// Written by an older bundlefs, and nobody is bringing it up to date.
    case olderVersion(path: String)
    /// Another process is creating it, or bringing it up to date, and did not finish in time.
    case beingCreated(path: String)
    /// Deleted under this process, which has not made a new one yet.
    case beingRebuilt(path: String)

    public var description: String {
        switch self {
        case let .missing(path): "no catalogue at \(path); run `bundlefs index ROOT` first"
        case let .cannotCreate(path, reason): "cannot create the catalogue at \(path): \(reason)"
        case let .unreadable(path, reason): "cannot read the catalogue at \(path): \(reason)"
        case let .notAFile(path, type): "\(path) is \(type == .unknown ? "not a regular file" : "a \(type)"), not a catalogue file; use the path of a regular file, or of none to create one"
        case let .notSQLite(path, empty):
            "\(path) is not a bundlefs catalogue (\(empty ? "it is empty" : "it is not a SQLite database")); bundlefs leaves it alone: use another catalogue path"
        case let .foreign(path, applicationID) where applicationID != 0:
            "\(path) is another program's SQLite database (application_id 0x\(String(UInt32(bitPattern: applicationID), radix: 16, uppercase: true))), not a bundlefs catalogue; bundlefs leaves it alone: use another catalogue path"
        case let .foreign(path, _):
            "\(path) is a SQLite database that bundlefs did not make; bundlefs leaves it alone: use another catalogue path"
        case let .notACatalogue(path, reason, held):
            held ? "\(path) is not a usable bundlefs catalogue (\(reason)); a running bundlefs holds it: stop that first"
                : "\(path) is not a usable bundlefs catalogue (\(reason)); it is derived data, so deleting it loses nothing"
        case let .newerVersion(path, found):
            "\(path) was written by a newer bundlefs (catalogue schema \(found); this bundlefs reads up to \(CatalogueFile.schemaVersions.last ?? "")); use that version, or delete the file to rebuild it"
        case let .olderVersion(path): "\(path) was written by an older bundlefs; `bundlefs index ROOT` (or starting the watcher) brings it up to date"
        case let .beingRebuilt(path): "the catalogue at \(path) was deleted and is being rebuilt"
        case let .beingCreated(path): "the catalogue at \(path) is being created or brought up to date by a running bundlefs; try again once it is ready (`bundlefs status`)"
        }
    }
}

/// The catalogue file as every reader finds it: where it is, its lock, how a reader waits for a
/// writer making it, and the schema versions a complete one has.
public enum CatalogueFile {
    /// The migrations' identifiers in order (GRDB's migrator's in `Schema`, a test holds them equal):
    /// what a complete catalogue of this version has applied.
    package static let schemaVersions = (1...20).map { "v\($0)" }

    /// GRDB's migrator's judgement of a catalogue from the migrations it has applied: one this
    /// version does not know is a newer bundlefs's; for a reader, which needs the catalogue
    /// `complete`, a missing one is an older's, and none at all is no catalogue.
    package static func checkVersion(applied: Set<String>, path: FilePath, complete: Bool) throws {
        let unknown = applied.filter { !schemaVersions.contains($0) }
        if !unknown.isEmpty {
            // Migrations are named v1, v2, ...: the newest is the one with the largest number.
            let newest = unknown.max { (Int($0.dropFirst()) ?? 0, $0) < (Int($1.dropFirst()) ?? 0, $1) } ?? ""
            throw CatalogueError.newerVersion(path: path.string, found: newest)
        }
        guard complete, !schemaVersions.allSatisfy(applied.contains) else { return }
        if !applied.isEmpty { throw CatalogueError.olderVersion(path: path.string) }
        throw CatalogueError.notACatalogue(path: path.string, reason: "its schema is not bundlefs's",
                                           held: FileLock.isHeld(at: lockPath(catalogue: path)))
    }

    /// How long a reader waits for a catalogue another process is creating or migrating.
    public static let creationWait = 10.0

    /// How many times readers in this process have found each catalogue's creator at work and
    /// waited for it: a test reads it to know a reader is waiting, not assume so after a while.
    package static func writerWaits(at path: FilePath) -> Int { writerWaits.withLock { $0[path.string, default: 0] } }
    private static let writerWaits = Mutex<[String: Int]>([:])

    /// Runs `open` again while it finds no catalogue, or one not yet complete, and a process holds
    /// the catalogue's lock (creating it, migrating it, or a watcher about to recreate a deleted
    /// one): a reader started right after `watch` waits for the catalogue instead of being told it
    /// is unusable.
    package static func waitingForWriter<Opening>(_ path: FilePath, seconds: Double, _ open: () throws -> Opening) throws -> Opening {
        let deadline = Clocks.monotonicSeconds() + seconds
        while true {
            do {
                return try open()
            } catch let error as CatalogueError {
                switch error {
                // An empty file is what a creator of an earlier version left while it worked.
                case .missing, .olderVersion, .notACatalogue, .notSQLite(_, empty: true):
                    // A creator that finished between the attempt and this look (its file renamed
                    // into place, then its lock let go) leaves a whole catalogue: one more try.
                    guard FileLock.isHeld(at: lockPath(catalogue: path)) else { return try open() }
                    guard Clocks.monotonicSeconds() < deadline else { throw CatalogueError.beingCreated(path: path.string) }
                    writerWaits.withLock { $0[path.string, default: 0] += 1 }
                    usleep(20_000)
                default:
                    throw error
                }
            }
        }
    }

    /// How much of the file a read-only connection maps (SQLite maps no more than the file holds).
    package static let readerMapSize = 1 << 30

    /// `file:PATH?immutable=1`, with the characters a URI gives meaning to escaped.
    package static func immutableURI(_ path: FilePath) -> String {
        let escaped = PercentEncoding.encode(path.bytes, uppercase: false) { byte in
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0x00...0x20, 0x7F...0xFF: true
            default: false
            }
        }
        return "file:" + escaped + "?immutable=1"
    }

    /// The lock file beside a catalogue: held by its watcher, which publishes its status in it, and
    /// by whoever creates or migrates the catalogue meanwhile.
    public static func lockPath(catalogue: FilePath) -> FilePath { FilePath(catalogue.string + ".lock") }

    /// The variables `defaultPath` reads.
    public static let pathVariables = ["BUNDLEFS_CATALOGUE", "XDG_CACHE_HOME", "HOME"]

    /// The default location: `$BUNDLEFS_CATALOGUE`, else `$XDG_CACHE_HOME/bundlefs/catalogue.sqlite`,
    /// else `~/.cache/bundlefs/catalogue.sqlite`.
    public static func defaultPath(environment: [String: String]) -> FilePath {
        if let explicit = environment["BUNDLEFS_CATALOGUE"], !explicit.isEmpty { return FilePath(explicit) }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return FilePath(cache + "/bundlefs/catalogue.sqlite") }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        return FilePath(home).appending(FilePath(".cache/bundlefs/catalogue.sqlite"))
    }
}
