public import BundleModel
import GRDB
public import Records
public import SystemCalls

/// Writes inside one transaction, with statements prepared once for it: scan events, and the
/// watcher's subtree removals and renames.
public struct CatalogueWriter {
    let insertBundle: RawStatement
    let updateBundle: RawStatement
    let deleteStrings: RawStatement
    let deleteProblems: RawStatement
    let insertString: RawStatement
    let insertProblem: RawStatement
    let deleteBinaries: RawStatement
    let insertBinary: RawStatement
    let deleteTags: RawStatement
    let insertTag: RawStatement
    let deleteBundle: RawStatement
    let upsertDirectory: RawStatement
    let removeDirectories: RawStatement
    let removeBundles: RawStatement
    let renameDirectories: RawStatement
    let renameBundles: RawStatement
    let renameBundleItself: RawStatement
    let upsertArchive: RawStatement
    let listArchives: RawStatement
    let deleteArchive: RawStatement
    let removeArchivesBelow: RawStatement
    let renameArchives: RawStatement
    let scannedAt: Double
    /// The directories whose archives were read again or removed in this transaction.
    public let archivesChanged = ArchivesChanged()
    /// Whether applications' claims and type tags are written (rules 28 and 29). Off only for
    /// the benchmark, which measures what they add to an index (Docs/benchmarks.md).
    public var writesLaunchServices = true

    /// A box the writer's non-mutating methods fill, within one transaction on its thread: not Sendable.
    public final class ArchivesChanged {
        public internal(set) var directories: Set<FilePath> = []
    }

    init(_ db: Database, scannedAt: Double) throws {
        insertBundle = try RawStatement(db, BundleRow.insertSQL)
        updateBundle = try RawStatement(db, BundleRow.updateSQL)
        deleteStrings = try RawStatement(db, "DELETE FROM localized_strings WHERE bundle_id = ?")
        deleteProblems = try RawStatement(db, "DELETE FROM problems WHERE bundle_id = ?")
        insertString = try RawStatement(db, "INSERT INTO localized_strings (bundle_id, localization, key, value) VALUES (?, ?, ?, ?)")
        insertProblem = try RawStatement(db, "INSERT INTO problems (bundle_id, severity, message) VALUES (?, ?, ?)")
        deleteBinaries = try RawStatement(db, "DELETE FROM binaries WHERE bundle_id = ?")
        insertBinary = try RawStatement(db, BinaryRow.insertSQL)
        deleteTags = try RawStatement(db, "DELETE FROM type_tags WHERE bundle_id = ?")
        insertTag = try RawStatement(db, LaunchRows.insertTagSQL)
        deleteBundle = try RawStatement(db, "DELETE FROM bundles WHERE path = ?")
        upsertDirectory = try RawStatement(db, """
            INSERT INTO directories (path, change_time, inode, device, extension, trusted, sidecar) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(path) DO UPDATE SET change_time = excluded.change_time, inode = excluded.inode,
                device = excluded.device, extension = excluded.extension, trusted = excluded.trusted, sidecar = excluded.sidecar
            """)
        // ?1 the subtree's root, ?3 and ?4 its bounds (`Catalogue.subtreeValues`), ?2 a new root.
        let subtree = Catalogue.subtree(exact: "?1", low: "?3", high: "?4")
        removeDirectories = try RawStatement(db, "DELETE FROM directories WHERE \(subtree)")
        removeBundles = try RawStatement(db, "DELETE FROM bundles WHERE \(subtree)")
        // Paths are valid UTF-8 (see FileNameCoding), so SQLite's length and substr, which count
        // characters, agree with each other.
        renameDirectories = try RawStatement(db, "UPDATE directories SET path = ?2 || substr(path, length(?1) + 1) WHERE \(subtree)")
        renameBundles = try RawStatement(db, """
            UPDATE bundles SET path = ?2 || substr(path, length(?1) + 1),
                executable = CASE WHEN \(Catalogue.subtree("executable", exact: "?1", low: "?3", high: "?4"))
                    THEN ?2 || substr(executable, length(?1) + 1) ELSE executable END,
                archive = CASE WHEN archive IS NOT NULL THEN ?2 || substr(archive, length(?1) + 1) END
            WHERE \(subtree)
            """)
        renameBundleItself = try RawStatement(db, "UPDATE bundles SET name = ?2 WHERE path = ?1")
        upsertArchive = try RawStatement(db, """
            INSERT INTO archives (path, directory, change_time, size, inode, members, error) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(path) DO UPDATE SET directory = excluded.directory, change_time = excluded.change_time, size = excluded.size,
                inode = excluded.inode, members = excluded.members, error = excluded.error
            """)
        listArchives = try RawStatement(db, "SELECT path FROM archives WHERE directory = ?")
        deleteArchive = try RawStatement(db, "DELETE FROM archives WHERE path = ?")
        removeArchivesBelow = try RawStatement(db, "DELETE FROM archives WHERE \(subtree)")
        renameArchives = try RawStatement(db, """
            UPDATE archives SET path = ?2 || substr(path, length(?1) + 1), directory = ?2 || substr(directory, length(?1) + 1) WHERE \(subtree)
            """)
        self.scannedAt = scannedAt
    }

    /// Removes a directory and everything catalogued under it.
    public func removeSubtree(_ path: FilePath) throws {
        for statement in [removeDirectories, removeBundles, removeArchivesBelow] {
            Self.bindSubtree(path, to: statement)
            try statement.execute()
        }
    }

    /// Moves every row at or under `from` to the same place under `to` (one UPDATE per table),
    /// replacing whatever was catalogued at `to`.
    private static func bindSubtree(_ root: FilePath, to statement: RawStatement) {
        let values = Catalogue.subtreeValues(root)
        statement.bind(1, values[0])
        statement.bind(3, values[1])
        statement.bind(4, values[2])
    }

    public func renameSubtree(from: FilePath, to: FilePath) throws {
        guard from != to else { return }
        try removeSubtree(to)
        // Launch Services' lists follow the bundles' paths (`LaunchLists`: triggers note the rows moved).
        for statement in [renameDirectories, renameBundles, renameArchives] {
            Self.bindSubtree(from, to: statement)
            statement.bind(2, to.string)
            try statement.execute()
        }
        renameBundleItself.bind(1, to.string)
        renameBundleItself.bind(2, to.lastComponent.string)
        try renameBundleItself.execute()
    }

    public func apply(_ event: ScanEvent) throws {
        switch event {
        case let .bundle(record): try write(record)
        case let .bundleRemoved(path): try removeBundle(at: path)
        case let .directory(row): try write(row)
        case let .archive(row, records): try write(row, records)
        case let .archivesListed(directory, names): try removeArchives(in: directory, except: names)
        }
    }

    public func write(_ record: BundleRecord) throws {
        let claims = writesLaunchServices ? ApplicationClaims.encode(record) : nil
        BundleRow.bind(record, scannedAt: scannedAt, launchClaims: claims, to: insertBundle)
        let id: Int64
        if let inserted = try insertBundle.executeReturningInteger() {
            id = inserted // new: it has no child rows yet
        } else {
            BundleRow.bind(record, scannedAt: scannedAt, launchClaims: claims, to: updateBundle)
            guard let updated = try updateBundle.executeReturningInteger() else { return }
            id = updated
            deleteStrings.bind(1, id)
            try deleteStrings.execute()
            deleteProblems.bind(1, id)
            try deleteProblems.execute()
            for statement in [deleteBinaries, deleteTags] {
                statement.bind(1, id)
                try statement.execute()
            }
        }
        if writesLaunchServices { try LaunchRows.writeTags(record, id: id, tag: insertTag) }
        for (index, slice) in record.binaries.enumerated() {
            BinaryRow.bind(slice, bundleID: id, index: index, to: insertBinary)
            try insertBinary.execute()
        }
        insertString.bind(1, id)
        for (localization, table) in record.infoPlistStrings {
            insertString.bind(2, localization.string)
            for (key, value) in table {
                insertString.bind(3, key)
                insertString.bind(4, value)
                try insertString.execute()
            }
        }
        insertProblem.bind(1, id)
        for (severity, messages) in [("error", record.errors), ("warning", record.warnings)] {
            insertProblem.bind(2, severity)
            for message in messages {
                insertProblem.bind(3, message)
                try insertProblem.execute()
            }
        }
    }

    /// An archive read again: its bundles replace those catalogued inside it.
    public func write(_ row: ArchiveRow, _ records: [BundleRecord]) throws {
        archivesChanged.directories.insert(row.path.parent)
        Self.bindSubtree(row.path, to: removeBundles)
        try removeBundles.execute()
        upsertArchive.bind(1, row.path.string)
        upsertArchive.bind(2, row.path.parent.string)
        upsertArchive.bind(3, row.changeTime)
        upsertArchive.bind(4, row.size)
        upsertArchive.bind(5, Int64(bitPattern: row.inode))
        upsertArchive.bind(6, Int64(row.members))
        upsertArchive.bind(7, row.error)
        try upsertArchive.execute()
        for record in records { try write(record) }
    }

    /// The archives catalogued in `directory` that it no longer lists, and their bundles.
    public func removeArchives(in directory: FilePath, except names: [FileName]) throws {
        listArchives.bind(1, directory.string)
        // Compared as paths, byte for byte: as Strings, NFC and NFD twins are one.
        let present = Set(names.map { directory.appending($0) })
        var gone: [String] = []
        try listArchives.forEachText { if !present.contains(FilePath($0)) { gone.append($0) } }
        if !gone.isEmpty { archivesChanged.directories.insert(directory) }
        for path in gone {
            Self.bindSubtree(FilePath(path), to: removeBundles)
            try removeBundles.execute()
            deleteArchive.bind(1, path)
            try deleteArchive.execute()
        }
    }

    public func removeBundle(at path: FilePath) throws {
        deleteBundle.bind(1, path.string)
        try deleteBundle.execute()
    }

    public func write(_ row: DirectoryRow) throws {
        let statement = upsertDirectory
        statement.bind(1, row.path.string)
        statement.bind(2, row.changeTime)
        statement.bind(3, Int64(bitPattern: row.inode))
        statement.bind(4, Int64(bitPattern: row.device))
        statement.bind(5, row.lowercasedExtension)
        statement.bind(6, row.trusted)
        statement.bind(7, StampCoding.encode(row.sidecar))
        try statement.execute()
    }
}
