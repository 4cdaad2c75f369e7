public import BundleModel
public import Catalogue
public import Logging
public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// What the view reads of the catalogue: bundles' records, the symbol index (by-uuid, the symbol
/// stores) and the launch index (default applications). It writes nothing.
public typealias ViewedCatalogue = CatalogueReader & SymbolIndex & LaunchIndex

/// The Finder-like view of one source tree (SPEC.md, "The view"): a reader of the catalogue and of
/// the tree, kept current by the catalogue's updates (`apply`), served to the kernel once mounted.
/// Whoever composes it with a watcher (the `Service` layer) loads it once the catalogue is
/// current, mounts it, and feeds it every update in order.
public final class FinderView: Sendable {
    public let source: FilePath
    let fileSystem: ViewFileSystem
    let updater: ViewUpdater

    /// - Parameters:
    ///   - source: a canonical absolute path.
    ///   - cacheTimeout: seconds the kernel may cache entries and attributes of real items
    ///     (they are invalidated when they change).
    public init(source: FilePath, catalogue: any ViewedCatalogue, languages: [LanguageTag], cacheTimeout: Double, logger: Logger) throws {
        self.source = source
        fileSystem = try ViewFileSystem(
            source: try ScanRoot(path: source), catalogue: catalogue, languages: languages,
            timeouts: ViewTimeouts(real: cacheTimeout), logger: logger)
        updater = ViewUpdater(fileSystem: fileSystem, catalogue: catalogue)
    }

    /// Reads every catalogued bundle under the source (before mounting).
    public func load() throws { try updater.loadPackages() }

    /// Applies an update: what it names is read again from the catalogue, and the kernel is told
    /// what to forget. Call in the order updates are made.
    public func apply(_ update: CatalogueUpdate) throws { try updater.apply(update) }

    /// Mounts the view; the session serves nothing until `run`.
    public func mount(at mountPoint: FilePath, allowOther: Bool) throws -> ViewSession {
        var options = ["ro", "default_permissions", "nodev", "nosuid", "fsname=bundlefs", "subtype=bundlefs"]
        if allowOther { options.append("allow_other") }
        let session = try FuseSession(fileSystem: fileSystem, options: options)
        try session.mount(at: mountPoint)
        do { try updater.start(session: session) } catch {
            session.unmount()
            throw error
        }
        return ViewSession(session: session, updater: updater)
    }
}

/// A mounted view: serves requests until stopped or unmounted from outside; unmounts when done.
public final class ViewSession: Sendable {
    let session: FuseSession
    let updater: ViewUpdater

    init(session: FuseSession, updater: ViewUpdater) {
        self.session = session
        self.updater = updater
    }

    /// Serves requests on the calling thread (and `threads - 1` more) until `stop()` or an
    /// unmount from outside; returns libfuse's result.
    public func run(threads: Int) -> Int32 { session.run(threads: threads) }

    /// Ends `run` from another thread.
    public func stop() { session.stop() }

    /// Stops telling the kernel about updates, and unmounts.
    public func unmount() {
        updater.stop()
        session.unmount()
    }
}

extension MountPoint {
    /// Lazily unmounts a dead mount left at `mountPoint` by a daemon that was killed, so that a
    /// restarted service can mount again; returns whether there was one. Used by `serve`, whose
    /// mount point is its own; `mount` leaves the decision to the user.
    public static func clearDead(at mountPoint: FilePath, logger: Logger) -> Bool {
        guard isDead(mountPoint) else { return false }
        logger.warning("\(mountPoint) is a dead mount left by an earlier daemon; unmounting it")
        for fusermount in ["/usr/bin/fusermount3", "/bin/fusermount3"] where access(fusermount, X_OK) == 0 {
            return ((try? Spawn.runDetached(fusermount, arguments: ["-uz", mountPoint.string])) ?? -1) == 0
        }
        return false
    }
}
