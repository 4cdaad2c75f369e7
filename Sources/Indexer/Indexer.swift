public import BundleModel
public import Catalogue
public import Records
public import Scanner
public import SystemCalls
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What one index run did.
public struct IndexSummary: Sendable {
    public var root: FilePath
    public var directoriesVisited = 0
    public var directoriesListed = 0
    public var bundlesRead = 0
    public var bundlesUnderRoot = 0
    public var bundlesWithErrors = 0
    /// Folders that only carry a bundle's extension (`FolderNamedLikeBundle`), not in `bundlesUnderRoot`.
    public var foldersNamedLikeBundles = 0
    public var removedDirectories = 0
    public var removedBundles = 0
    public var claimedExtensions: [String] = []
    /// The claims the run ended with, and the book they were computed with (rule 14): what a
    /// watcher keeps current afterwards, instead of reading every application again.
    public var claimed = ClaimedTypes()
    public var claimBook: PackageClaimBook?
    public var problems: [String] = []
    public var seconds = 0.0
}

public enum IndexError: Error, CustomStringConvertible {
    case notADirectory(FilePath)
    case unreadableRoot(FilePath, String)

    public var description: String {
        switch self {
        case let .notADirectory(path): "\(path) is not a directory"
        case let .unreadableRoot(path, reason): "cannot read \(path): \(reason)"
        }
    }
}

/// Scans roots into the catalogue: the first time completely, later only what changed.
public struct Indexer: Sendable {
    public let catalogue: any CatalogueWriting
    public var options: ScanOptions
    /// Whether applications' claims and type tags are written (`CatalogueWriter`). Off only for
    /// the benchmark, which measures what they add to an index.
    public var writesLaunchServices = true
    /// Whether a first index (an empty catalogue) makes its secondary indexes, triggers and derived
    /// rows once at its end (`Catalogue.buildingIndexesAfterwards`) rather than row by row. Off only
    /// in tests, which hold what that path writes to what the plain one writes.
    public var buildsIndexesAfterwards = true

    public init(catalogue: any CatalogueWriting, options: ScanOptions = ScanOptions()) {
        self.catalogue = catalogue
        self.options = options
    }

    /// The canonical absolute path of a root: symlinks resolved, so paths in the catalogue are stable.
    public static func canonicalRoot(_ path: FilePath) throws -> FilePath {
        let resolved: FilePath
        do { resolved = try path.resolved() } catch let error as SystemError { throw IndexError.unreadableRoot(path, error.message) }
        guard (try? FileStatus.of(resolved))?.type == .directory else { throw IndexError.notADirectory(path) }
        return resolved
    }

    /// Indexes one root and reconciles claims. `progress` is updated while it runs.
    public func index(root path: FilePath, progress: ScanProgress = ScanProgress()) throws -> IndexSummary {
        let clock = ContinuousClock()
        let started = clock.now
        let rootPath = try Self.canonicalRoot(path)
        let root = try ScanRoot(path: rootPath, confinement: .trustedLinksOut)
        if let status = try? FileStatus.of(rootPath, followSymlinks: true) { _ = try catalogue.forgetDirectories(under: rootPath, unlessOnDevice: status.device) }
        let known = try catalogue.knownTree(under: rootPath)
        var scanOptions = options
        scanOptions.settings.claimed = try catalogue.claimedTypes()

        let scanner = TreeScanner(root: root, known: known, options: scanOptions, progress: progress)
        let sink = CatalogueSink(catalogue: catalogue, writesLaunchServices: writesLaunchServices)
        let result = try catalogue.checkpointingSparsely {
            buildsIndexesAfterwards ? try catalogue.buildingIndexesAfterwards { scanner.scan(into: sink) } : scanner.scan(into: sink)
        }
        try sink.check()

        let staleDirectories = known.directories(notIn: result.visitedKnownDirectories)
        let staleBundles = known.bundles.keys.filter { !result.present($0, known: known) }
        try catalogue.remove(directories: staleDirectories, bundles: staleBundles)

        var summary = IndexSummary(root: rootPath)
        summary.claimed = try reconcileClaims(previouslyClaimed: scanOptions.settings.claimed, rootHint: root, book: &summary.claimBook).claimed
        summary.claimedExtensions = summary.claimed.extensions.sorted()
        try catalogue.recordRoot(rootPath, indexedAt: Double(Clocks.wallNanoseconds()) / 1e9)

        let counts = try catalogue.counts(under: rootPath)
        summary.directoriesVisited = progress.directoriesVisited
        summary.directoriesListed = progress.directoriesListed
        summary.bundlesRead = progress.bundlesRead
        summary.bundlesUnderRoot = counts.bundles
        summary.bundlesWithErrors = counts.withErrors
        summary.foldersNamedLikeBundles = counts.folders
        summary.removedDirectories = staleDirectories.count
        summary.removedBundles = staleBundles.count
        summary.problems = result.problems
        let elapsed = clock.now - started
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }

    /// What reconciling claims found: the claimed extensions, and the catalogue changes it made.
    public struct ClaimsReconciliation: Sendable {
        public var claimed: ClaimedTypes
        public var changes: [ScanEvent]
    }

    /// Recomputes package claims from every catalogued application (rule 14) and re-reads the
    /// directories whose package status the change affects, wherever they are catalogued. The
    /// book it computed them with is left in `book`, for later changes.
    @discardableResult
    public func reconcileClaims(previouslyClaimed: ClaimedTypes, rootHint: ScanRoot, book: inout PackageClaimBook?) throws -> ClaimsReconciliation {
        let computed = PackageClaimBook(try catalogue.claimSources())
        try catalogue.replaceClaims(computed.claims)
        book = computed
        return try settle(ClaimedTypes(claims: computed.claims), previouslyClaimed: previouslyClaimed, rootHint: rootHint)
    }

    @discardableResult
    public func reconcileClaims(previouslyClaimed: ClaimedTypes, rootHint: ScanRoot) throws -> ClaimsReconciliation {
        var book: PackageClaimBook?
        return try reconcileClaims(previouslyClaimed: previouslyClaimed, rootHint: rootHint, book: &book)
    }

    /// The same, after some bundles changed what they bring (already written to the catalogue):
    /// only their claims are recomputed, unless type declarations changed. Nil when no claim did.
    public func reconcileClaims(_ book: inout PackageClaimBook, updating sources: [FilePath: ClaimResolver.Application?],
                                rewritten: Set<FilePath> = [], previouslyClaimed: ClaimedTypes, rootHint: ScanRoot) throws -> ClaimsReconciliation? {
        switch book.update(sources, rewritten: rewritten) {
        case .unchanged: return nil
        case .rebuilt: try catalogue.replaceClaims(book.claims)
        case let .recomputed(paths): try catalogue.replaceClaims(book.claims(of: paths), of: paths)
        }
        return try settle(ClaimedTypes(claims: book.claims), previouslyClaimed: previouslyClaimed, rootHint: rootHint)
    }

    /// Re-reads the directories whose extension's claim changed.
    private func settle(_ claimed: ClaimedTypes, previouslyClaimed: ClaimedTypes, rootHint: ScanRoot) throws -> ClaimsReconciliation {
        let changed = claimed.changedExtensions(since: previouslyClaimed)
        guard !changed.isEmpty else { return ClaimsReconciliation(claimed: claimed, changes: []) }
        var affected = Set(try catalogue.directories(withExtensions: changed, under: .root))
        affected.formUnion(try catalogue.claimedPackages(under: .root).filter { path in
            path.lastComponent.lowercasedExtension.map { !claimed.extensions.contains($0) } ?? true
        })
        var settings = options.settings
        settings.claimed = claimed
        var events: [ScanEvent] = []
        let roots = try catalogue.indexedRoots() + [rootHint.path]
        var scanners: [FilePath: TreeScanner] = [:]
        for path in affected.sorted() {
            // Read each directory beneath the root it was catalogued under.
            guard let rootPath = roots.filter({ path.isWithin($0) }).max(by: { $0.string.utf8.count < $1.string.utf8.count }) else { continue }
            if scanners[rootPath] == nil, let root = rootPath == rootHint.path ? rootHint : try? ScanRoot(path: rootPath, confinement: .trustedLinksOut) {
                scanners[rootPath] = TreeScanner(root: root, options: ScanOptions(threads: 1, settings: settings))
            }
            guard let scanner = scanners[rootPath] else { continue }
            switch scanner.inspectDirectory(at: path) {
            case let .bundle(record): events.append(.bundle(record))
            case .notABundle, .missing: events.append(.bundleRemoved(path: path))
            case .unreadable: continue
            }
        }
        try CatalogueSink.write(events, to: catalogue, writesLaunchServices: writesLaunchServices)
        return ClaimsReconciliation(claimed: claimed, changes: events)
    }
}

/// Writes scan batches into the catalogue as they arrive; remembers the first failure.
final class CatalogueSink: ScanSink, Sendable {
    let catalogue: any CatalogueWriting
    let writesLaunchServices: Bool
    private let failure = Mutex<(any Error)?>(nil)

    init(catalogue: any CatalogueWriting, writesLaunchServices: Bool) {
        self.catalogue = catalogue
        self.writesLaunchServices = writesLaunchServices
    }

    func receive(_ events: [ScanEvent]) {
        guard failure.withLock({ $0 == nil }) else { return }
        do { try Self.write(events, to: catalogue, writesLaunchServices: writesLaunchServices) } catch { failure.withLock { $0 = error } }
    }

    /// One transaction of scan events, with the writer's Launch Services switch.
    static func write(_ events: [ScanEvent], to catalogue: any CatalogueWriting, writesLaunchServices: Bool) throws {
        try catalogue.apply(events, scannedAt: Double(Clocks.wallNanoseconds()) / 1e9, writesLaunchServices: writesLaunchServices)
    }

    func check() throws { if let failure = failure.withLock({ $0 }) { throw failure } }
}
