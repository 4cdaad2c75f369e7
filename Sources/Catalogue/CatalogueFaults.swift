import GRDB
import GRDBSQLite
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// What goes wrong with a catalogue under a running daemon, and how it gets a usable one back.
extension Catalogue {
    /// Why a read or write failed, in words a user can act on.
    public static func explain(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        let detail = error.message.map { " (\($0))" } ?? ""
        switch error.resultCode.primaryResultCode {
        case .SQLITE_FULL: return "the file system holding the catalogue is full" + detail
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "another process holds the catalogue locked" + detail
        case .SQLITE_READONLY: return "the catalogue cannot be written: its file or file system is read-only" + detail
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return "the catalogue is damaged" + detail + "; it is derived data: deleting it loses nothing"
        case .SQLITE_IOERR: return "reading or writing the catalogue failed" + detail
        default: return "SQLite error \(error.resultCode.rawValue)" + detail
        }
    }

    /// Whether the file at the catalogue's path is the one this object has open: false once it was
    /// deleted or replaced (a restored backup, a user's `rm`).
    public func isStillAtItsPath() -> Bool {
        guard let status = try? FileStatus.of(path, followSymlinks: true) else { return false }
        return openedIdentity == status.identity
    }

    /// Opens whatever is at the path now, creating a new catalogue when nothing is; readers and
    /// writers use it from the next call on.
    ///
    /// The WAL and shared-memory files at the path may still be those of the file that was open:
    /// SQLite would replay that WAL into the new file, and closing the old connection would delete
    /// the new file's. So the old connection keeps its WAL on close, and side files that this
    /// process has open are unlinked before the new file is opened.
    public func reopen() throws {
        if let old = try? database {
            old.writeWithoutTransaction { db in
                var persist: Int32 = 1
                _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            }
            if !isStillAtItsPath() {
                let ours = Self.openFileIdentities()
                for suffix in ["-wal", "-shm"] {
                    let side = FilePath(path.string + suffix)
                    if let status = try? FileStatus.of(side), ours.contains(status.identity) { _ = try? side.withCString { unlink($0) } }
                }
            }
            // Let go of the old file before making the new one: a deleted catalogue holds its
            // space until closed, and on a full disk the new one needs that space.
            letGo()
        }
        try replaceDatabase()
    }

    /// The files this process has open (through /proc/self/fd).
    static func openFileIdentities() -> Set<FileIdentity> {
        guard let directory = try? Descriptor.open(FilePath("/proc/self/fd"), flags: Descriptor.directoryNoFollow),
              let entries = try? directory.listDirectoryTyped()
        else { return [] }
        return Set(entries.compactMap { entry in (try? FileStatus.of(FilePath("/proc/self/fd").appending(entry.name), followSymlinks: true))?.identity })
    }
}
