public import BundleModel
import Foundation
import GRDB
public import Records
public import SystemCalls

/// A bundle or package as the catalogue keeps it: its row id and the whole record written.
public struct CataloguedBundle: Sendable {
    public var id: Int64
    public var record: BundleRecord
}

/// What to list: an exact identifier or a glob, a kind, a subtree. Identifiers match
/// case-insensitively; a glob understands `*` and `?`.
public struct BundleQuery: Sendable {
    public var identifier: String?
    public var kind: String?
    public var under: FilePath?
    /// A Mach-O UUID or ELF build-id, as `BinarySlice.uuidKey` makes it comparable (rule 25).
    public var uuidKey: String?
    /// Bundles with a slice of this architecture.
    public var arch: String?
    /// Only bundles inside archives (true), only loose ones (false), or both (nil).
    public var inArchives: Bool?
    /// Bundles that provide this CFPlugIn type, as `PlugInProvision.typeKey` spells it (rule 31).
    public var plugInType: String?
    /// Bundles that are extensions of this extension point (rule 31).
    public var extensionPoint: String?
    /// Bundles whose executable runs there (rule 32).
    public var runsOn: RunTarget?

    public init(identifier: String? = nil, kind: String? = nil, under: FilePath? = nil, uuidKey: String? = nil, arch: String? = nil,
                inArchives: Bool? = nil) {
        self.inArchives = inArchives
        self.identifier = identifier
        self.kind = kind
        self.under = under
        self.uuidKey = uuidKey
        self.arch = arch
    }

    public var identifierIsGlob: Bool { identifier.map { $0.contains("*") || $0.contains("?") } ?? false }
}

extension Catalogue {
    /// The bundles matching a query, by path.
    public func bundles(matching query: BundleQuery) throws -> [CataloguedBundle] {
        try read { db in try Self.bundles(db, matching: query) }
    }

    /// The same, from any connection (`CatalogueLookup`'s too).
    static func bundles(_ source: some RowSource, matching query: BundleQuery) throws -> [CataloguedBundle] {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        if let identifier = query.identifier {
            if query.identifierIsGlob {
                conditions.append("identifier LIKE ? ESCAPE '\\'")
                arguments.append(.text(Self.likePattern(forGlob: identifier)))
            } else {
                conditions.append("identifier = ? COLLATE NOCASE")
                arguments.append(.text(identifier))
            }
        }
        if let kind = query.kind {
            conditions.append("kind = ?")
            arguments.append(.text(kind))
        }
        if let under = query.under {
            conditions.append(Self.subtreeCondition)
            arguments += Self.subtreeValues(under).map(SQLValue.text)
        }
        if let uuidKey = query.uuidKey {
            conditions.append("id IN (SELECT bundle_id FROM binaries WHERE uuid_key = ?)")
            arguments.append(.text(uuidKey))
        }
        if let inArchives = query.inArchives { conditions.append(inArchives ? "archive IS NOT NULL" : "archive IS NULL") }
        if let arch = query.arch {
            conditions.append("id IN (SELECT bundle_id FROM binaries WHERE arch = ?)")
            arguments.append(.text(arch))
        }
        if let plugInType = query.plugInType {
            conditions.append("EXISTS (SELECT 1 FROM json_each(info, '$.CFPlugInTypes') WHERE lower(replace(key, '-', '')) = ?)")
            arguments.append(.text(plugInType))
        }
        if let extensionPoint = query.extensionPoint {
            conditions.append("json_extract(info, '$.NSExtension.NSExtensionPointIdentifier') = ?")
            arguments.append(.text(extensionPoint))
        }
        if let runsOn = query.runsOn {
            // The slices' platform narrows; versions and architectures are rule 32's, below.
            conditions.append("id IN (SELECT bundle_id FROM binaries WHERE lower(platform) = ?)")
            arguments.append(.text(runsOn.platform))
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let bundles = try fetchBundles(source, sql: "SELECT \(BundleRow.selectList) FROM bundles \(whereClause) ORDER BY path", arguments: arguments)
        guard let runsOn = query.runsOn else { return bundles }
        return bundles.filter { runsOn.admits($0.record) }
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
        try fetchBundles(db, sql: "SELECT \(BundleRow.selectList) FROM bundles WHERE path = ?", arguments: [.text(path.string)]).first
    }

    /// How many bundles and directories there are under a root, for summaries.
    public func counts(under root: FilePath) throws -> (bundles: Int, directories: Int, withErrors: Int) {
        try read { db in
            let bounds = Self.subtreeArguments(root)
            let bundles = try Row.fetchOne(db, sql: "SELECT count(*), count(CASE WHEN error_count > 0 THEN 1 END) FROM bundles WHERE \(Self.subtreeCondition)", arguments: bounds)
            let directories = try Int.fetchOne(db, sql: "SELECT count(*) FROM directories WHERE \(Self.subtreeCondition)", arguments: bounds) ?? 0
            return (bundles?[0] ?? 0, directories, bundles?[1] ?? 0)
        }
    }

    /// The archives' own errors (truncated, not an archive, a limit reached), by archive: what
    /// `query --json` gives its bundles as `archiveError`.
    public func archiveErrors(of archives: Set<FilePath>) throws -> [FilePath: String] {
        guard !archives.isEmpty else { return [:] }
        return try read { db in try Self.archiveErrors(db, of: archives) }
    }

    static func archiveErrors(_ source: some RowSource, of archives: Set<FilePath>) throws -> [FilePath: String] {
        var errors: [FilePath: String] = [:]
        for archive in archives {
            try source.forEachRow("SELECT error FROM archives WHERE path = ? AND error IS NOT NULL", [.text(archive.string)]) { row in
                errors[archive] = row.text(0)
            }
        }
        return errors
    }

    /// `path = R OR path` in the half-open range (R/, R0): everything under R, using the index. The
    /// three values are `subtreeValues(R)`, which get the root right (`/`: everything).
    static let subtreeCondition = subtree()

    /// The same for any column and placeholders (the writer's statements number theirs).
    static func subtree(_ column: String = "path", exact: String = "?", low: String = "?", high: String = "?") -> String {
        "(\(column) = \(exact) OR (\(column) >= \(low) AND \(column) < \(high)))"
    }

    public static func subtreeValues(_ root: FilePath) -> [String] {
        root == .root ? ["/", "/", "0"] : [root.string, root.string + "/", root.string + "0"]
    }

    static func subtreeArguments(_ root: FilePath) -> StatementArguments { StatementArguments(subtreeValues(root)) }

    public static func likePattern(forGlob glob: String) -> String {
        var pattern = ""
        for character in glob {
            switch character {
            case "*": pattern += "%"
            case "?": pattern += "_"
            case "%", "_", "\\": pattern += "\\" + String(character)
            default: pattern.append(character)
            }
        }
        return pattern
    }

    /// Every bundle, a chunk of rows at a time (by row id), each chunk read in one transaction:
    /// loading all of them at start should not hold every whole record at once (20,000 records
    /// are some 80 MB, which the process would keep as resident memory after freeing them).
    public func forEachBundleChunk(size: Int = 1_000, _ body: ([CataloguedBundle]) throws -> Void) throws {
        var after: Int64 = 0
        while true {
            let chunk: [CataloguedBundle] = try read { db in
                guard let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM (SELECT id FROM bundles WHERE id > ? ORDER BY id LIMIT ?)",
                                                    arguments: [after, size]) else { return [] }
                return try Self.fetchBundles(db, sql: "SELECT \(BundleRow.selectList) FROM bundles WHERE id > ? AND id <= ? ORDER BY id",
                                             arguments: [.integer(after), .integer(last)], childRange: (after + 1, last))
            }
            guard let last = chunk.last?.id else { return }
            try body(chunk)
            after = last
        }
    }

    static func fetchBundles(_ source: some RowSource, sql: String, arguments: [SQLValue], childRange: (Int64, Int64)? = nil) throws -> [CataloguedBundle] {
        var found: [CataloguedBundle] = []
        try source.forEachRow(sql, arguments) { row in found.append(CataloguedBundle(id: row.integer(0) ?? 0, record: BundleRow.record(from: row))) }
        guard !found.isEmpty else { return [] }
        var strings: [Int64: [FileName: [String: String]]] = [:]
        var problems: [Int64: [(severity: String, message: String)]] = [:]
        var binaries: [Int64: [BinarySlice]] = [:]
        // Text that may hold NUL (a value of a strings file, a message naming it) is selected as a
        // blob: read as a C string, SQLite's text would end at the first NUL.
        let stringsSQL = "SELECT bundle_id, localization, CAST(key AS BLOB), CAST(value AS BLOB) FROM localized_strings"
        let problemsSQL = "SELECT bundle_id, severity, CAST(message AS BLOB) FROM problems"
        let binariesSQL = "SELECT \(BinaryRow.selectList) FROM binaries"
        func children(_ condition: String, _ arguments: [SQLValue], ordered: (problems: String, binaries: String)) throws {
            try source.forEachRow("\(stringsSQL) \(condition)", arguments) { row in
                strings[row.integer(0) ?? 0, default: [:]][FileName(row.text(1) ?? ""), default: [:]][row.exactText(2)] = row.exactText(3)
            }
            try source.forEachRow("\(problemsSQL) \(condition) ORDER BY \(ordered.problems)", arguments) { row in
                problems[row.integer(0) ?? 0, default: []].append((row.text(1) ?? "", row.exactText(2)))
            }
            try source.forEachRow("\(binariesSQL) \(condition) ORDER BY \(ordered.binaries)", arguments) { row in
                binaries[row.integer(0) ?? 0, default: []].append(BinaryRow.slice(row))
            }
        }
        if found.count <= 64 {
            // A few bundles (a lookup): their child rows by index.
            for bundle in found { try children("WHERE bundle_id = ?", [.integer(bundle.id)], ordered: ("rowid", "slice")) }
        } else if let (low, high) = childRange {
            // A chunk of row ids: the child rows of that range.
            try children("WHERE bundle_id BETWEEN ? AND ?", [.integer(low), .integer(high)], ordered: ("rowid", "bundle_id, slice"))
        } else {
            // Many (a listing): one pass over each child table.
            try children("", [], ordered: ("rowid", "bundle_id, slice"))
        }
        return found.map { bundle in
            var bundle = bundle
            BundleRow.complete(&bundle.record, strings: strings[bundle.id] ?? [:], problems: problems[bundle.id] ?? [], binaries: binaries[bundle.id] ?? [])
            return bundle
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
        try Row.fetchCursor(db, sql: "SELECT path, change_time, inode, trusted, sidecar FROM directories WHERE \(subtreeCondition) ORDER BY path",
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
            try Row.fetchCursor(db, sql: "SELECT path, inode FROM directories WHERE \(Self.subtreeCondition) ORDER BY path",
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

    /// Every application's document types and type declarations, for computing claims. An
    /// application inside an archive claims nothing: it is not installed (rule 26).
    public func claimSources() throws -> [ClaimResolver.Application] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT path, document_types, type_declarations FROM bundles WHERE archive IS NULL AND (document_types IS NOT NULL OR type_declarations IS NOT NULL)").map { row in
                ClaimResolver.Application(
                    path: FilePath(row[0] as String), documentTypes: (row[1] as String?).map { DocumentTypeCoding.decode($0, bundle: FilePath(row[0] as String)) } ?? [],
                    typeDeclarations: (row[2] as String?).map(TypeDeclarationCoding.decode) ?? [])
            }
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
