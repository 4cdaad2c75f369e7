import GRDBSQLite
package import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Whether the file at a catalogue's path is bundlefs's, judged before SQLite opens it for
/// anything that could write: a FIFO would hang the open, another program's database would get
/// our tables (and WAL mode) added, and a text file would be called a damaged catalogue that
/// "deleting loses nothing" of. Every catalogue bundlefs writes carries `applicationID` in its
/// header; one written before it did is recognised by its migrations.
extension CatalogueFile {
    /// SQLite's `application_id` of a bundlefs catalogue: "BNFS".
    public static let applicationID: Int32 = 0x424E_4653

    /// Throws unless `path` holds a regular file that is bundlefs's catalogue (or one of an
    /// earlier schema, or of a newer bundlefs): `.notAFile`, `.notSQLite`, `.foreign`; a missing
    /// file is `.missing`, one this user may not read `.unreadable`. Returns the file's status as
    /// opened, which says which file it was.
    @discardableResult
    package static func vet(_ path: FilePath) throws -> FileStatus {
        guard let status = try? FileStatus.of(path, followSymlinks: true) else { throw CatalogueError.missing(path: path.string) }
        guard status.type == .regular else { throw CatalogueError.notAFile(path: path.string, type: status.type) }
        let header: [UInt8], opened: FileStatus
        do {
            // Non-blocking: a FIFO put there since the check must not hang the open.
            let file = try Descriptor.open(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            opened = try file.status()
            guard opened.type == .regular else { throw CatalogueError.notAFile(path: path.string, type: opened.type) }
            header = try file.read(at: 0, count: 100)
        } catch let error as CatalogueError {
            throw error
        } catch let error as SystemError where error.errno == EACCES {
            throw CatalogueError.unreadable(path: path.string, reason: "permission denied")
        } catch let error as SystemError where error.errno == ENOENT {
            throw CatalogueError.missing(path: path.string)
        } catch {
            throw CatalogueError.unreadable(path: path.string, reason: "\(error)")
        }
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw CatalogueError.notSQLite(path: path.string, empty: header.isEmpty)
        }
        switch Int32(bitPattern: header[68..<72].reduce(0) { $0 << 8 | UInt32($1) }) {
        case applicationID: break
        // Unmarked in the file itself: a catalogue of a bundlefs before the mark (or one whose
        // mark is still in its WAL), or another program's database.
        case 0: try vetUnmarked(path)
        case let other: throw CatalogueError.foreign(path: path.string, applicationID: other)
        }
        return opened
    }

    /// A SQLite file with no `application_id` in its header, asked read-only: bundlefs's when
    /// SQLite (which reads the WAL too) finds the mark, or finds migrations that are all ours.
    private static func vetUnmarked(_ path: FilePath) throws {
        let probe: LookupConnection
        if let normal = try? LookupConnection(path: path.string, uri: false), (try? normal.applicationID()) != nil {
            probe = normal
        } else if let immutable = try? LookupConnection(path: immutableURI(path), uri: true) {
            // No -shm file can be made beside it (a directory this user may not write): as it is.
            probe = immutable
        } else {
            throw CatalogueError.foreign(path: path.string, applicationID: 0)
        }
        guard let mark = try? probe.applicationID() else { throw CatalogueError.foreign(path: path.string, applicationID: 0) }
        if mark == applicationID { return }
        guard mark == 0 else { throw CatalogueError.foreign(path: path.string, applicationID: mark) }
        var applied: [String] = []
        try? probe.read {
            var hasTable = false
            try probe.forEachRow("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'", []) { _ in hasTable = true }
            guard hasTable else { return }
            try probe.forEachRow("SELECT identifier FROM grdb_migrations", []) { row in applied.append(row.text(0) ?? "") }
        }
        guard !applied.isEmpty, applied.allSatisfy(schemaVersions.contains) else {
            throw CatalogueError.foreign(path: path.string, applicationID: 0)
        }
    }
}

extension LookupConnection {
    /// `PRAGMA application_id`, as SQLite sees it (the WAL included).
    func applicationID() throws -> Int32 {
        var value: Int32 = 0
        try forEachRow("PRAGMA application_id", []) { row in value = Int32(truncatingIfNeeded: row.integer(0) ?? 0) }
        return value
    }
}
