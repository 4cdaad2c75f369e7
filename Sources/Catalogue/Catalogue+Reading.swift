public import BundleModel
import CatalogueReading
import GRDB
public import Records
public import SystemCalls

extension Catalogue {
    /// The bundles matching a query, by path.
    public func bundles(matching query: BundleQuery) throws -> [CataloguedBundle] {
        try read { db in try CatalogueQueries.bundles(db, matching: query) }
    }

    /// The first `limit` bundles matching a query, by path, and how many match in all, reading
    /// only the records listed (its `runsOn` aside).
    public func bundlePage(matching query: BundleQuery, limit: Int) throws -> (bundles: [CataloguedBundle], count: Int) {
        try read { db in try CatalogueQueries.page(db, matching: query, limit: limit) }
    }

    /// One bundle by path.
    public func bundle(atPath path: FilePath) throws -> CataloguedBundle? {
        try bundles(atPaths: [path]).first
    }

    /// The bundles at these paths that are catalogued, read in one snapshot.
    public func bundles(atPaths paths: [FilePath]) throws -> [CataloguedBundle] {
        guard !paths.isEmpty else { return [] }
        return try read { db in
            try paths.compactMap { try Self.fetchBundle(db, atPath: $0) }
        }
    }

    /// The bundle at a path, within a read the caller has open.
    static func fetchBundle(_ db: Database, atPath path: FilePath) throws -> CataloguedBundle? {
        try CatalogueQueries.fetchBundles(db, sql: "SELECT \(BundleRow.selectList) FROM bundles WHERE path = ?", arguments: [.text(path.string)]).first
    }

    /// How many bundles and directories there are under a root, for summaries. Folders that only
    /// carry a bundle's extension (kind `folder`) are counted apart: they are no bundles.
    public func counts(under root: FilePath) throws -> (bundles: Int, directories: Int, withErrors: Int, folders: Int) {
        try read { db in
            let bounds = Self.subtreeArguments(root)
            let bundles = try Row.fetchOne(db, sql: """
                SELECT count(CASE WHEN kind <> 'folder' THEN 1 END), count(CASE WHEN error_count > 0 AND kind <> 'folder' THEN 1 END),
                       count(CASE WHEN kind = 'folder' THEN 1 END)
                FROM bundles WHERE \(Self.subtreeCondition)
                """, arguments: bounds)
            return (bundles?[0] ?? 0, try Self.directoryCount(db, bounds), bundles?[1] ?? 0, bundles?[2] ?? 0)
        }
    }

    /// How many directories there are under a root (what the watcher's tree makes room for): the
    /// directories' index alone, not every bundle's row as `counts` reads.
    public func directoryCount(under root: FilePath) throws -> Int {
        try read { db in try Self.directoryCount(db, Self.subtreeArguments(root)) }
    }

    private static func directoryCount(_ db: Database, _ bounds: StatementArguments) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM directories WHERE \(subtreeCondition)", arguments: bounds) ?? 0
    }

    /// The archives' own errors (truncated, not an archive, a limit reached), by archive: what
    /// `query --json` gives its bundles as `archiveError`.
    public func archiveErrors(of archives: Set<FilePath>) throws -> [FilePath: String] {
        guard !archives.isEmpty else { return [:] }
        return try read { db in try CatalogueQueries.archiveErrors(db, of: archives) }
    }

    /// What `CatalogueQueries` says (kept here for the writer's and the readers' SQL).
    static let subtreeCondition = CatalogueQueries.subtreeCondition

    static func subtree(_ column: String = "path", exact: String = "?", low: String = "?", high: String = "?") -> String {
        CatalogueQueries.subtree(column, exact: exact, low: low, high: high)
    }

    public static func subtreeValues(_ root: FilePath) -> [String] { CatalogueQueries.subtreeValues(root) }

    static func subtreeArguments(_ root: FilePath) -> StatementArguments { StatementArguments(subtreeValues(root)) }

    public static func likePattern(forGlob glob: String) -> String { CatalogueQueries.likePattern(forGlob: glob) }

    /// Every bundle, a chunk of rows at a time (by row id), each chunk read in one transaction:
    /// loading all of them at start should not hold every whole record at once (20,000 records
    /// are some 80 MB, which the process would keep as resident memory after freeing them).
    public func forEachBundleChunk(size: Int, _ body: ([CataloguedBundle]) throws -> Void) throws {
        var after: Int64 = 0
        while true {
            let chunk: [CataloguedBundle] = try read { db in
                guard let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM (SELECT id FROM bundles WHERE id > ? ORDER BY id LIMIT ?)",
                                                    arguments: [after, size]) else { return [] }
                return try CatalogueQueries.fetchBundles(db, sql: "SELECT \(BundleRow.selectList) FROM bundles WHERE id > ? AND id <= ? ORDER BY id",
                                             arguments: [.integer(after), .integer(last)], childRange: (after + 1, last))
            }
            guard let last = chunk.last?.id else { return }
            try body(chunk)
            after = last
        }
    }

    // MARK: For the indexer

    /// What the catalogue knows under a root, for an incremental scan.
    public func knownTree(under root: FilePath) throws -> KnownTree {
        try read { db in
            var tree = KnownTree()
            try Self.addKnown(db, under: root, to: &tree)
            return tree
        }
    }

    /// What the catalogue knows of these bundles (their directories and files), for checking them
    /// again a chunk at a time: the whole tree's would be hundreds of megabytes at 50,000 bundles.
    public func knownTree(ofBundles bundles: [FilePath]) throws -> KnownTree {
        try read { db in
            var tree = KnownTree()
            for bundle in bundles { try Self.addKnown(db, under: bundle, to: &tree) }
            return tree
        }
    }

    private static func addKnown(_ db: Database, under subtree: FilePath, to tree: inout KnownTree) throws {
        let bounds = subtreeArguments(subtree)
        try Row.fetchCursor(db, sql: CatalogueQueries.orderedSubtree("SELECT path, change_time, inode, trusted, sidecar FROM directories"),
                            arguments: bounds).forEach { row in
            let path = FilePath(row[0] as String)
            tree.addDirectory(path, KnownTree.Directory(changeTime: row[1], inode: UInt64(bitPattern: row[2]), trusted: row[3]),
                              sidecar: StampCoding.decode(row[4] as String?).first)
        }
        // Archived bundles are the archive's: it is checked, not they (see `archives`).
        try Row.fetchCursor(db, sql: "SELECT path, change_time, size, inode, members, error FROM archives WHERE \(subtreeCondition)", arguments: bounds).forEach { row in
            tree.addArchive(ArchiveRow(path: FilePath(row[0] as String), changeTime: row[1], size: row[2], inode: UInt64(bitPattern: row[3]),
                                       members: row[4], error: row[5]))
        }
        try Row.fetchCursor(db, sql: "SELECT path, stamps, info_file, resources_directory, kind FROM bundles WHERE archive IS NULL AND \(subtreeCondition)", arguments: bounds).forEach { row in
            let path = FilePath(row[0] as String)
            tree.addBundle(path, stamps: StampCoding.decode(row[1] as String?), structure: structure(path, row[2], row[3], row[4]))
        }
    }

    private static func structure(_ path: FilePath, _ infoFile: String?, _ resourcesDirectory: String?, _ kind: String) -> BundleStructure {
        BundleStructure(infoFile: infoFile.map { FilePath($0) }, resourcesDirectory: resourcesDirectory.map { FilePath($0) },
                        lowercasedExtension: path.lastComponent.lowercasedExtension, kind: BundleKind(rawValue: kind))
    }

    /// Every catalogued directory under a root with its inode, parents before children, without
    /// holding them all: what the watcher's tree is built from.
    public func forEachDirectory(under root: FilePath, _ body: (FilePath, UInt64) throws -> Void) throws {
        try read { db in
            try Row.fetchCursor(db, sql: CatalogueQueries.orderedSubtree("SELECT path, inode FROM directories"),
                                arguments: Self.subtreeArguments(root)).forEach { row in
                try body(FilePath(row[0] as String), UInt64(bitPattern: row[1]))
            }
        }
    }

    /// Every catalogued bundle under a root with its structure, without holding them all.
    public func forEachBundleStructure(under root: FilePath, _ body: (FilePath, BundleStructure) throws -> Void) throws {
        try read { db in
            try Row.fetchCursor(db, sql: "SELECT path, info_file, resources_directory, kind FROM bundles WHERE archive IS NULL AND \(Self.subtreeCondition)",
                                arguments: Self.subtreeArguments(root)).forEach { row in
                let path = FilePath(row[0] as String)
                try body(path, Self.structure(path, row[1], row[2], row[3]))
            }
        }
    }

    /// What every installed application brings to rule 14's claims: its type declarations and the
    /// document types that could claim a package (`PackageClaimBook.relevant`), for the system's
    /// table. An application inside an archive claims nothing: it is not installed (rule 26). Read
    /// and reduced a row at a time, so that what no claim can come from is never held all at once.
    public func claimSources() throws -> [ClaimResolver.Application] {
        let neverPackages = SystemPackageTypes.standard.neverPackages
        return try read { db in
            var sources: [ClaimResolver.Application] = []
            try Row.fetchCursor(db, sql: "SELECT path, document_types, type_declarations FROM bundles WHERE archive IS NULL AND (document_types IS NOT NULL OR type_declarations IS NOT NULL)").forEach { row in
                let path = FilePath(row[0] as String)
                let application = ClaimResolver.Application(
                    path: path, documentTypes: (row[1] as String?).map { DocumentTypeCoding.decode($0, bundle: path) } ?? [],
                    typeDeclarations: (row[2] as String?).map(TypeDeclarationCoding.decode) ?? [])
                if let relevant = PackageClaimBook.relevant(application, neverPackages: neverPackages) { sources.append(relevant) }
            }
            return sources
        }
    }

    /// The roots indexed so far.
    public func indexedRoots() throws -> [FilePath] {
        try read { db in try String.fetchAll(db, sql: "SELECT path FROM roots ORDER BY path").map { FilePath($0) } }
    }

    /// The claimed extensions currently recorded.
    public func claimedExtensions() throws -> Set<String> {
        try read { db in Set(try String.fetchAll(db, sql: "SELECT DISTINCT extension FROM claims")) }
    }

    /// The claims as inspection uses them: the recorded extensions, with the icons their
    /// applications' document types name (derived again from the applications' rows).
    public func claimedTypes() throws -> ClaimedTypes {
        let extensions = try claimedExtensions()
        let claims = ClaimResolver.claims(of: try claimSources()).filter { extensions.contains($0.ext) }
        return ClaimedTypes(extensions: extensions, icons: ClaimedTypes(claims: claims).icons)
    }

    /// Directories under a root whose extension is one of these.
    public func directories(withExtensions extensions: Set<String>, under root: FilePath) throws -> [FilePath] {
        guard !extensions.isEmpty else { return [] }
        return try read { db in
            var paths: [FilePath] = []
            for ext in extensions.sorted() {
                paths += try String.fetchAll(db, sql: "SELECT path FROM directories WHERE extension = ? AND \(Self.subtreeCondition)",
                                             arguments: [ext] + Self.subtreeArguments(root)).map { FilePath($0) }
            }
            return paths
        }
    }

    /// Catalogued packages under a root that are packages because of a claim.
    public func claimedPackages(under root: FilePath) throws -> [FilePath] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT path FROM bundles WHERE package_reasons LIKE '%claimed%' AND \(Self.subtreeCondition)",
                                arguments: Self.subtreeArguments(root)).map { FilePath($0) }
        }
    }
}
