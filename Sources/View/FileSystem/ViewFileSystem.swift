import BundleModel
import Catalogue
import Logging
import PaxTar
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A failed request: the errno the kernel gets.
struct ViewError: Error {
    let code: Int32
    static let notFound = ViewError(code: ENOENT)
    static let readOnly = ViewError(code: EROFS)

    /// Runs `body`, answering the kernel with a failed system call's errno, a `ViewError` as
    /// it is, and EIO for anything else.
    static func translating<T>(_ body: () throws -> T) throws(ViewError) -> T {
        do {
            return try body()
        } catch let error as SystemError {
            throw ViewError(code: error.errno)
        } catch let error as ViewError {
            throw error
        } catch {
            throw ViewError(code: EIO)
        }
    }
}

/// How long the kernel may trust what the view says. Real items are invalidated explicitly when
/// the watcher sees them change, so they get long timeouts; `.bundlefs` items, derived from many
/// files at once, get short ones instead of precise invalidation, except the bundle and UUID
/// views that `by-id`, `by-uuid` and `by-path` list, and the symbol stores' directories: every
/// update drops the attributes and listings of every synthesized node the kernel holds
/// (`ViewUpdater`), whose attributes then fail once it is gone, and a listing of 50,000 of them
/// looked up again every half second cost 50,000 round trips per `ls -l` (a warm `ls -R` of a symbol
/// store at 30,000 UUIDs, 135,000 directories, cost 5 s instead of the 1 s of a native tree).
struct ViewTimeouts: Sendable {
    var real: Double = 3600
    var synthesized: Double = 0.5
    var listedViews: Double = 3600
}

/// The view's answers to the kernel's requests, independent of libfuse's C types (the glue in
/// `FuseOperations` converts): lookups, attributes, directory snapshots, file handles, xattrs.
/// Every request may run on any of the session's threads.
final class ViewFileSystem: Sendable {
    let source: ScanRoot
    let nodes: NodeTable
    let packages: PackageIndex
    let records: RecordCache
    let listings: ListingCache
    let layouts: LayoutCache
    let handles = HandleTable()
    /// Source files open for reading, by node (`sourceFile`).
    let openFiles: OpenFiles<Descriptor>
    /// The files a package node's reads keep open (a few each), by node.
    let tarFiles = OpenFiles<TarFileSource>(limit: 32)
    /// Requests by kind, for `make bench` (`RequestCounts`).
    let requests: RequestCounts
    /// Whether the kernel opens directories itself (FUSE_CAP_NO_OPENDIR_SUPPORT, negotiated at
    /// INIT): OPENDIR is then answered ENOSYS once and never sent again.
    let kernelOpensDirectories = Atomic<Bool>(false)
    /// Whether the kernel opens files itself (FUSE_CAP_NO_OPEN_SUPPORT): OPEN is answered ENOSYS
    /// once, and neither OPEN nor RELEASE comes again; the kernel keeps a file's pages across opens
    /// until told they changed.
    let kernelOpensFiles = Atomic<Bool>(false)
    let directorySnapshots = DirectorySnapshots()
    let views: BundleViews
    let uuids: UUIDViews
    let symbols: SymbolStores
    /// The symbol stores' directories a walk lists next, made ahead (`ViewSymbols`).
    let symbolReadAhead: ReadAhead<SymbolPath, SymbolListing>
    /// `user.bundle.default-application`'s answers, kept by question between updates.
    let defaultApplications: DefaultApplications
    let timeouts: ViewTimeouts
    let logger: Logger
    /// The source root's own status: owner and times for synthesized directories.
    let rootStatus: FileStatus
    /// Tells the kernel to drop the names under which it holds a node, so that the next open
    /// looks it up again, from the notifier thread (set once mounted; never called inside a
    /// request handler's locks).
    let retireNode = Mutex<(@Sendable (UInt64) -> Void)?>(nil)

    init(source: ScanRoot, catalogue: any ViewedCatalogue, languages: [LanguageTag], timeouts: ViewTimeouts = ViewTimeouts(),
         listingEntryLimit: Int = 50_000, layoutMemberLimit: Int = 25_000, openFileLimit: Int = 256, logger: Logger) throws {
        self.source = source
        rootStatus = try FileStatus.of(source.path)
        nodes = NodeTable(rootPath: source.path, device: rootStatus.device, inode: rootStatus.inode)
        packages = PackageIndex(languages: languages)
        records = RecordCache(catalogue: catalogue)
        listings = ListingCache(entryLimit: listingEntryLimit)
        layouts = LayoutCache(memberLimit: layoutMemberLimit)
        openFiles = OpenFiles(limit: openFileLimit)
        views = BundleViews(source: source, packages: packages, records: records)
        // A file changed since it was indexed is a warning, as the HTTP server gives it.
        let refused: @Sendable (SymbolFileRefusal) -> Void = { refusal in
            if case .notRecorded = refusal.kind { logger.debug("\(refusal)") } else { logger.warning("\(refusal)") }
        }
        let requests = RequestCounts()
        self.requests = requests
        uuids = UUIDViews(source: source, catalogue: catalogue, requests: requests, refused: refused)
        symbols = SymbolStores(source: source, catalogue: catalogue, requests: requests, refused: refused)
        defaultApplications = DefaultApplications(catalogue: catalogue, requests: requests)
        self.timeouts = timeouts
        // Kept no longer than the kernel keeps a symbol file's attributes.
        symbolReadAhead = ReadAhead(lifetime: timeouts.synthesized)
        self.logger = logger
    }

    /// A live node, or ESTALE for an id the kernel should no longer use.
    func node(_ id: UInt64) throws(ViewError) -> NodeTable.Node {
        guard let node = nodes.node(id) else { throw ViewError(code: ESTALE) }
        return node
    }

    /// The real path of a node standing for a real item (or a bundle view's bundle).
    func realPath(_ id: UInt64) throws(ViewError) -> FilePath {
        guard let path = nodes.path(of: id) else { throw ViewError(code: ESTALE) }
        return path
    }

    /// The presentation of a real directory, from the cache or listed now.
    func listing(_ path: FilePath, mode: DirectoryListing.Mode, fresh: Bool = false) throws(ViewError) -> DirectoryListing {
        let key = ListingCache.Key(path: path, mode: mode)
        if !fresh, let cached = listings.listing(key) { return cached }
        let listing = try ViewError.translating { try DirectoryListing(path: path, mode: mode, packages: packages, root: source) }
        listings.store(listing, for: key)
        return listing
    }

    /// Whether a directory changed since it was listed (the watcher's invalidation may not have
    /// arrived yet): checked before answering that a name does not exist.
    func isStale(_ listing: DirectoryListing, path: FilePath) -> Bool {
        guard let now = try? FileStatus.of(path) else { return true }
        return now.inode != listing.status.inode || now.modificationTime != listing.status.modificationTime
            || now.changeTime != listing.status.changeTime
    }

    /// A package node whose package changed: the kernel is told to look the package up again.
    func packageChanged(_ id: UInt64) {
        retireNode.withLock { $0 }?(id)
    }

    /// FORGET: when the kernel no longer knows a node, what was kept open for it is closed.
    func forget(_ id: UInt64, count: UInt64) {
        guard nodes.forget(id, count: count) else { return }
        openFiles.remove(id)
        tarFiles.remove(id)
    }

    func timeout(for kind: NodeKind) -> Double {
        switch kind {
        case .source, .package: timeouts.real
        case .bundleView, .uuidView, .symbols: timeouts.listedViews
        default: timeouts.synthesized
        }
    }
}
