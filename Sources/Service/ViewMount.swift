public import BundleModel
import Catalogue
import Logging
import SystemCalls
import View
import Watcher

/// How a view is mounted and kept current.
public struct MountSettings: Sendable {
    public var languages: [LanguageTag] = []
    /// Threads serving requests at most: 1 runs libfuse's single-threaded loop, more `RelayLoop`,
    /// which starts another only when a request has taken 20 ms.
    public var threads = MountSettings.defaultThreads
    /// Several: one request that takes long (a huge package laid out, a listing of 50,000 UUIDs
    /// after an update) must not hold up every other. They take over from one another only then
    /// (`RelayLoop`), so serial work runs as on one thread.
    public static let defaultThreads = 4
    /// Let users other than the mounting one see the view (needs user_allow_other for non-root).
    public var allowOther = false
    /// Seconds the kernel may cache entries and attributes of real items (invalidated on change).
    public var cacheTimeout = 3600.0

    public init() {}
}

/// The view part of a `Daemon` (`mount`, `serve`): the watcher keeping the catalogue current on a
/// thread of its own, and the view mounted on top once the first index is done, fed the watcher's
/// updates in order. `run` returns once stopped or the file system was unmounted from outside.
final class ViewMount: Sendable {
    let source: FilePath
    let mountPoint: FilePath
    let catalogue: Catalogue
    let settings: MountSettings
    let logger: Logger
    let watcher: Watcher
    private let state = ConditionMutex(State())

    private struct State: Sendable {
        var stopRequested = false
        var session: ViewSession?
        var watcherState: WatcherState = .starting

        var isWaitingForWatcher: Bool {
            if case .starting = watcherState { !stopRequested } else { false }
        }
    }

    private enum WatcherState: Sendable {
        case starting, ready, finished
        case failed(any Error)
    }

    /// - Parameter source: a canonical absolute path (see `Indexer.canonicalRoot`), the watcher's
    ///   root; the mount point was checked (`MountPoint.check`).
    init(source: FilePath, mountPoint: FilePath, catalogue: Catalogue, watcher: Watcher, settings: MountSettings, logger: Logger) {
        self.source = source
        self.mountPoint = (try? mountPoint.resolved()) ?? mountPoint
        self.catalogue = catalogue
        self.watcher = watcher
        self.settings = settings
        self.logger = logger
    }

    /// Indexes, mounts, calls `ready`, then serves until stopped.
    func run(ready: () -> Void) throws {
        let view = try FinderView(source: source, catalogue: catalogue, languages: settings.languages,
                                  cacheTimeout: settings.cacheTimeout, logger: logger)
        watcher.observer = { [logger] update in
            do { try view.apply(update) } catch { logger.error("reading the catalogue for the view: \(error)") }
        }
        let watcherThread = try Threads.start { [self] in runWatcher(view) }
        defer {
            watcher.stop()
            Threads.join(watcherThread)
        }
        // The view shows what the catalogue knows: mount once the first index is complete.
        let watcherState = state.withLock(when: { !$0.isWaitingForWatcher }) { $0.watcherState }
        if case let .failed(error) = watcherState { throw error }
        if state.withLock({ $0.stopRequested }) { return }

        let session = try view.mount(at: mountPoint, allowOther: settings.allowOther)
        defer { session.unmount() }
        let stopNow = state.withLock { state -> Bool in
            state.session = session
            return state.stopRequested
        }
        if stopNow { return }
        logger.info("mounted \(source) on \(mountPoint)")
        ready()
        let loopResult = session.run(threads: settings.threads)
        let requested = state.withLock { state -> Bool in
            state.session = nil
            return state.stopRequested
        }
        logger.info("unmounting \(mountPoint)\(requested ? "" : " (the FUSE loop ended by itself: \(loopResult))")")
        if case let .failed(error) = state.withLock({ $0.watcherState }) { throw error }
    }

    private func runWatcher(_ view: FinderView) {
        do {
            try watcher.run(ready: {
                do { try view.load() } catch { logger.error("reading the catalogue: \(error)") }
                state.withLock {
                    $0.watcherState = .ready
                    state.broadcast()
                }
            })
            state.withLock {
                if case .starting = $0.watcherState { $0.watcherState = .finished }
                state.broadcast()
            }
        } catch {
            logger.error("the watcher stopped: \(error)")
            let session = state.withLock { state -> ViewSession? in
                state.watcherState = .failed(error)
                self.state.broadcast()
                return state.session
            }
            session?.stop()
        }
    }

    /// Unmounts and returns from `run` (from a signal-handling thread).
    func stop() {
        let session = state.withLock { state -> ViewSession? in
            state.stopRequested = true
            self.state.broadcast()
            return state.session
        }
        watcher.stop()
        session?.stop()
    }
}
