public import BundleModel
public import Catalogue
public import Logging
public import Scanner
public import Watcher
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// How a view is mounted.
public struct MountSettings: Sendable {
    public var languages: [LanguageTag] = []
    /// Threads serving requests: 1 runs libfuse's single-threaded loop.
    public var threads = 1
    /// Let users other than the mounting one see the view (needs user_allow_other for non-root).
    public var allowOther = false
    public var watch = WatchSettings()
    public var scan = ScanOptions()
    /// Seconds the kernel may cache entries and attributes of real items (invalidated on change).
    public var cacheTimeout = 3600.0

    public init() {}
}

/// `bundlefs mount`: the watcher keeping the catalogue current on its own thread, and the view
/// mounted on top, fed by it. `run` returns once stopped (SIGINT/SIGTERM call `stop`) or the
/// file system was unmounted from outside.
public final class ViewMount: @unchecked Sendable {
    public let source: String
    public let mountPoint: String
    public let catalogue: Catalogue
    let settings: MountSettings
    let logger: Logger
    let watcher: Watcher
    private let lock = ConditionLock()
    private var stopRequested = false
    private var session: FuseSession?
    private var watcherState: WatcherState = .starting

    private enum WatcherState {
        case starting, ready, finished
        case failed(any Error)
    }

    /// Checks the mount point and takes the catalogue's watcher lock; throws `MountError` or
    /// `WatchError` with a message for the user.
    /// - Parameter source: a canonical absolute path (see `Indexer.canonicalRoot`).
    public init(source: String, mountPoint: String, catalogue: Catalogue, settings: MountSettings, logger: Logger) throws {
        try MountPoint.check(mountPoint, source: source)
        self.source = source
        self.mountPoint = (try? Paths.resolved(mountPoint)) ?? mountPoint
        self.catalogue = catalogue
        self.settings = settings
        self.logger = logger
        watcher = try Watcher(catalogue: catalogue, roots: [source], settings: settings.watch, options: settings.scan, logger: logger)
    }

    /// Indexes, mounts, calls `ready`, then serves until stopped.
    public func run(ready: () -> Void) throws {
        let fileSystem = try ViewFileSystem(
            source: try ScanRoot(path: source), catalogue: catalogue, languages: settings.languages,
            timeouts: ViewTimeouts(real: settings.cacheTimeout), logger: logger)
        let updater = ViewUpdater(fileSystem: fileSystem, catalogue: catalogue)
        watcher.observer = { update in updater.apply(update) }
        let watcherThread = Threads.spawn { [self] in runWatcher(updater) }
        defer {
            watcher.stop()
            Threads.join(watcherThread)
        }
        // The view shows what the catalogue knows: mount once the first index is complete.
        let state: WatcherState = lock.withLock {
            while case .starting = watcherState, !stopRequested { lock.wait() }
            return watcherState
        }
        if case let .failed(error) = state { throw error }
        if lock.withLock({ stopRequested }) { return }

        var options = ["ro", "default_permissions", "nodev", "nosuid", "fsname=bundlefs", "subtype=bundlefs"]
        if settings.allowOther { options.append("allow_other") }
        let session = try FuseSession(fileSystem: fileSystem, options: options)
        try session.mount(at: mountPoint)
        defer { session.unmount() }
        updater.start(session: session)
        defer { updater.stop() }
        let stopNow = lock.withLock { () -> Bool in
            self.session = session
            return stopRequested
        }
        if stopNow { return }
        logger.info("mounted \(source) on \(mountPoint)")
        ready()
        let loopResult = session.run(threads: settings.threads)
        let requested = lock.withLock { () -> Bool in
            self.session = nil
            return stopRequested
        }
        logger.info("unmounting \(mountPoint)\(requested ? "" : " (the FUSE loop ended by itself: \(loopResult))")")
        if case let .failed(error) = lock.withLock({ watcherState }) { throw error }
    }

    private func runWatcher(_ updater: ViewUpdater) {
        do {
            try watcher.run(ready: {
                do { try updater.loadPackages() } catch { logger.error("reading the catalogue: \(error)") }
                lock.withLock {
                    watcherState = .ready
                    lock.broadcast()
                }
            })
            lock.withLock {
                if case .starting = watcherState { watcherState = .finished }
                lock.broadcast()
            }
        } catch {
            logger.error("the watcher stopped: \(error)")
            let session = lock.withLock { () -> FuseSession? in
                watcherState = .failed(error)
                lock.broadcast()
                return self.session
            }
            session?.stop()
        }
    }

    /// Unmounts and returns from `run` (from a signal-handling thread).
    public func stop() {
        let session = lock.withLock { () -> FuseSession? in
            stopRequested = true
            lock.broadcast()
            return self.session
        }
        watcher.stop()
        session?.stop()
    }

    /// Lazily unmounts a dead mount left at `mountPoint` by a daemon that was killed, so that a
    /// restarted service can mount again; returns whether there was one. Used by `serve`, whose
    /// mount point is its own; `mount` leaves the decision to the user.
    public static func clearDeadMount(at mountPoint: String, logger: Logger) -> Bool {
        guard MountPoint.isDead(mountPoint) else { return false }
        logger.warning("\(mountPoint) is a dead mount left by an earlier daemon; unmounting it")
        for fusermount in ["/usr/bin/fusermount3", "/bin/fusermount3"] where access(fusermount, X_OK) == 0 {
            return ((try? Spawn.runDetached(fusermount, arguments: ["-uz", mountPoint])) ?? -1) == 0
        }
        return false
    }

    /// The watcher's scan counters (the first index's progress).
    public var progress: ScanProgress { watcher.progress }

    /// SIGHUP: rescan the source.
    public func requestRescan() { watcher.requestRescan() }
}
