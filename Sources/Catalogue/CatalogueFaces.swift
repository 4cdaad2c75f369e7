public import BundleModel
public import Records
public import SystemCalls

// The faces of `Catalogue`, one per client: each client holds the face it uses, so its
// dependency says what it reads and writes. `Catalogue` is the one implementation. The faces are
// class-bound: a value of one is a reference and a witness table (no box, no copy), and every
// call on it is a SQLite read or write.

/// What an index run reads and writes (`Indexer`): what is known under a root, the scan's
/// writes, stale rows, roots and claims.
public protocol CatalogueWriting: AnyObject, Sendable {
    func knownTree(under root: FilePath) throws -> KnownTree
    func forgetDirectories(under root: FilePath, unlessOnDevice device: UInt64) throws -> Bool
    func counts(under root: FilePath) throws -> (bundles: Int, directories: Int, withErrors: Int, folders: Int)
    func indexedRoots() throws -> [FilePath]
    func claimedTypes() throws -> ClaimedTypes
    func claimSources() throws -> [ClaimResolver.Application]
    func directories(withExtensions extensions: Set<String>, under root: FilePath) throws -> [FilePath]
    func claimedPackages(under root: FilePath) throws -> [FilePath]

    func checkpointingSparsely<T>(_ body: () throws -> T) throws -> T
    func buildingIndexesAfterwards<T>(_ body: () throws -> T) throws -> T
    func apply(_ events: [ScanEvent], scannedAt: Double, writesLaunchServices: Bool) throws
    func remove(directories: [FilePath], bundles: [FilePath]) throws
    func recordRoot(_ path: FilePath, indexedAt time: Double) throws
    func replaceClaims(_ claims: [PackageClaim], of applications: Set<FilePath>?) throws
}

extension CatalogueWriting {
    /// Every application's claims (rule 14: claims are global).
    public func replaceClaims(_ claims: [PackageClaim]) throws { try replaceClaims(claims, of: nil) }

    /// Applies a batch of scan events in one transaction, in their order.
    public func apply(_ events: [ScanEvent], scannedAt: Double) throws {
        try apply(events, scannedAt: scannedAt, writesLaunchServices: true)
    }
}

/// The watcher's (`Watcher`): an index run's face, and its own turns' transactions, the rows its
/// tree is loaded from, its status, and the file's replacement under it.
public protocol WatchedCatalogue: CatalogueWriting {
    var path: FilePath { get }
    func knownTree(ofBundles bundles: [FilePath]) throws -> KnownTree
    func directoryCount(under root: FilePath) throws -> Int
    func forEachDirectory(under root: FilePath, _ body: (FilePath, UInt64) throws -> Void) throws
    func forEachBundleStructure(under root: FilePath, _ body: (FilePath, BundleStructure) throws -> Void) throws
    func transaction<T>(scannedAt: Double, _ body: (CatalogueWriter) throws -> T) throws -> T
    func writeWatchStatus(_ status: WatchStatus) throws
    func isStillAtItsPath() -> Bool
    func reopen() throws
    func releaseMemory()
}

/// Every bundle, a chunk at a time: what a reader that loads the whole catalogue walks (the
/// view's package index, a whole send to PostgreSQL).
public protocol BundleChunks: AnyObject, Sendable {
    func forEachBundleChunk(size: Int, _ body: ([CataloguedBundle]) throws -> Void) throws
}

extension BundleChunks {
    public func forEachBundleChunk(_ body: ([CataloguedBundle]) throws -> Void) throws {
        try forEachBundleChunk(size: Catalogue.bundleChunkSize, body)
    }
}

/// The publisher's (`Publisher`, `PublishedCatalogue.sendWhole`): the outbox of changes, the
/// publication's state, and the bundles for a whole send.
public protocol CatalogueOutbox: BundleChunks {
    func identity() throws -> String
    @discardableResult
    func beginPublishing(_ status: PublicationStatus) throws -> Int64?
    func endPublishing() throws
    func writePublicationState(_ status: PublicationStatus) throws
    func publicationStatus() throws -> PublicationStatus?
    func outboxBacklog(countingBundles: Bool) throws -> OutboxBacklog
    func outboxBatch(limit: Int) throws -> OutboxBatch?
    func outboxHead() throws -> Int64
    func outboxSent(through sequence: Int64, whole: Bool, at time: Double) throws
}

/// The symbol index (the HTTP symbol server, the view's by-uuid and symbol stores): slices by
/// UUID key, and the one file that answers a layout's entry (`SymbolFileFinder`).
public protocol SymbolIndex: AnyObject, Sendable {
    func symbolMatches(uuidKey: String, under: FilePath?) throws -> [DebugSymbols.Match]
    func symbolMatchesByKey(under root: FilePath) throws -> [String: [DebugSymbols.Match]]
    func symbolMatchesByKey(prefix: String, under root: FilePath) throws -> [String: [DebugSymbols.Match]]
    func symbolKeyGroups(under root: FilePath) throws -> [(key: String, format: BinarySlice.Format)]
    func symbolFile(_ entry: SymbolLayout.Entry, roots: [FilePath], refused: (SymbolFileRefusal) -> Void) throws -> SymbolFile?
}

/// The launch index (rules 28 to 30: `open-with`, the view's default applications): handlers
/// ranked, and the type database a question reaches.
public protocol LaunchIndex: AnyObject, Sendable {
    func handlers(of question: HandlerRanking.Question, role: LaunchClaim.Role?, all: Bool, limit: Int?) throws -> [HandlerRanking.Handler]
    func typeDatabase(reaching question: HandlerRanking.Question) throws -> TypeDatabase
    func typeDatabase() throws -> TypeDatabase
}

/// A reader of bundles' records (the view's records and updates, status): by query, by path,
/// and counts.
public protocol CatalogueReader: BundleChunks {
    func bundles(matching query: BundleQuery) throws -> [CataloguedBundle]
    func bundle(atPath path: FilePath) throws -> CataloguedBundle?
    func bundles(atPaths paths: [FilePath]) throws -> [CataloguedBundle]
    func counts(under root: FilePath) throws -> (bundles: Int, directories: Int, withErrors: Int, folders: Int)
    func archiveErrors(of archives: Set<FilePath>) throws -> [FilePath: String]
    func watchStatus() throws -> WatchStatus?
    func publicationStatus() throws -> PublicationStatus?
}

extension Catalogue: WatchedCatalogue, CatalogueOutbox, SymbolIndex, LaunchIndex, CatalogueReader {
    /// Bundles read per transaction by `forEachBundleChunk`.
    public static let bundleChunkSize = 1_000
}
