import Catalogue
import Indexer
public import Logging
import Publishing
public import Scanner
public import SystemCalls
import View
public import SymbolServer
import Synchronization
public import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// The one place the long-running parts are put together (`watch`, `mount`, `serve`): the
/// catalogue, the watcher keeping it current, the view on top of it, the publisher copying it to
/// PostgreSQL, the HTTP symbol server reading it, signals, and systemd's notify protocol. A command says what it wants (`Plan`) and
/// calls `run`; the daemon starts the parts, hands the watcher's updates to the view, and stops
/// them in order on SIGINT/SIGTERM (SIGHUP: rescan).
public final class Daemon: Sendable {
    /// What to run.
    public struct Plan: Sendable {
        /// Trees to keep catalogued (absolute; made canonical here).
        public var roots: [FilePath]
        public var catalogue: FilePath
        /// The view over the one root, when mounting.
        public var view: ViewPlan?
        /// A PostgreSQL database to keep current; without one, changes stop being queued for a
        /// publisher no longer configured.
        public var publish: PublishPlan?
        /// Serve the catalogue's symbols over HTTP there (`symbols = ADDR:PORT`), from the roots.
        public var symbols: ListenAddress?
        /// Speak systemd's notify protocol (`serve`): readiness, status lines, watchdog.
        public var notifiesSystemd = false
        public var watch = WatchSettings()
        public var scan = ScanOptions()

        public init(roots: [FilePath], catalogue: FilePath) {
            self.roots = roots
            self.catalogue = catalogue
        }
    }

    public struct ViewPlan: Sendable {
        public var mountPoint: FilePath
        public var settings: MountSettings
        /// After a crash, systemd restarts the service on its own dead mount: clear it first.
        public var clearsDeadMount = false
        /// `mount` without `--nonempty`: a mount point that holds something is refused, since the
        /// view would hide it.
        public var refusesNonEmpty = false

        public init(mountPoint: FilePath, settings: MountSettings) {
            self.mountPoint = mountPoint
            self.settings = settings
        }
    }

    public struct PublishPlan: Sendable {
        public var url: String
        public var host: String?

        public init(url: String, host: String?) {
            self.url = url
            self.host = host
        }
    }

    let catalogue: Catalogue
    let roots: [FilePath]
    let watcher: Watcher
    let view: ViewMount?
    let publisher: Publisher?
    let symbolServer: SymbolServer?
    let reporter: SystemdReporter?
    let logger: Logger
    /// Set once the first index is done (and the view mounted).
    private let isReady = Atomic<Bool>(false)

    /// Readies the process (before any thread of its own starts: signals go to one thread, and
    /// the malloc arenas are few), then opens the catalogue and makes every part. Errors a user
    /// can act on are `DaemonError`s.
    public init(plan: Plan, environment: [String: String], logger: Logger, publishLogger: Logger) throws {
        // Only the signal thread takes SIGINT/SIGTERM/SIGHUP, only the FUSE loop's the SIGUSR1
        // that wakes it to stop.
        Signals.block(Signals.stopping + [SIGUSR1])
        Memory.limitArenasForDaemon()
        self.logger = logger
        var roots: [FilePath] = []
        for root in plan.roots {
            do { roots.append(try Indexer.canonicalRoot(root)) } catch { throw DaemonError("\(error)") }
        }
        self.roots = roots
        do { catalogue = try Catalogue(path: plan.catalogue, mode: .readWrite, lockWait: Catalogue.daemonLockWait) } catch let error as CatalogueError { throw DaemonError("\(error)") }
        do {
            if let viewPlan = plan.view {
                if viewPlan.clearsDeadMount { _ = MountPoint.clearDead(at: viewPlan.mountPoint, logger: logger) }
                try MountPoint.check(viewPlan.mountPoint, source: roots[0], refusesNonEmpty: viewPlan.refusesNonEmpty)
            }
            let (catalogue, roots) = (catalogue, roots)
            let watcher = try Watcher(catalogue: catalogue, roots: roots, settings: plan.watch, options: plan.scan, logger: logger)
            self.watcher = watcher
            view = plan.view.map { viewPlan in
                ViewMount(source: roots[0], mountPoint: viewPlan.mountPoint, catalogue: catalogue, watcher: watcher, settings: viewPlan.settings, logger: logger)
            }
        } catch let error as MountError {
            throw DaemonError("\(error)")
        } catch let error as WatchError {
            throw DaemonError(plan.view == nil ? "\(error)" : "\(error); give each view its own catalogue with --catalogue")
        }
        if let publish = plan.publish {
            publisher = try Publisher(catalogue: catalogue, settings: .fromEnvironment(environment, url: publish.url, host: publish.host ?? Publisher.Settings.defaultHost),
                                      logger: publishLogger)
        } else {
            publisher = nil
            if (try? catalogue.publicationStatus()) != nil { try catalogue.endPublishing() }
        }
        // Bound now, so that a port in use is an error at start rather than a silent absence.
        if let listen = plan.symbols {
            do {
                let servedRoots = roots
                symbolServer = try SymbolServer(catalogue: catalogue, roots: { servedRoots }, listen: listen, logger: logger)
            } catch {
                throw DaemonError("symbols: \(error)")
            }
            logger.info("serving symbols at http://\(symbolServer!.address)")
        } else {
            symbolServer = nil
        }
        reporter = plan.notifiesSystemd ? SystemdReporter(environment: environment, logger: logger) : nil
    }

    /// Runs until SIGINT/SIGTERM (or, with a view, an unmount from outside); `ready` once the
    /// catalogue is current (and the view mounted).
    public func run(ready: @escaping @Sendable () -> Void = {}) throws {
        try Signals.handle { [self] signal in
            if signal == SIGHUP { rescan() } else { stop() }
        }
        publisher?.start()
        defer { publisher?.stop() }
        defer {
            symbolServer?.stop()
            symbolServer?.wait()
        }
        let announce: @Sendable () -> Void = { [self] in
            isReady.store(true, ordering: .releasing)
            reporter?.ready(statusLine())
            ready()
        }
        try reporter.map { try $0.reporting(progress: { [self] in statusLine() }) { try serve(ready: announce) } } ?? serve(ready: announce)
    }

    private func serve(ready: @escaping @Sendable () -> Void) throws {
        if let view { try view.run(ready: ready) } else { try watcher.run(ready: ready) }
    }

    /// SIGINT/SIGTERM: stop watching, unmount; `run` returns.
    public func stop() {
        reporter?.stopping(view.map { "unmounting \($0.mountPoint)" } ?? "stopping")
        if let view { view.stop() } else { watcher.stop() }
    }

    /// SIGHUP: rescan the roots.
    public func rescan() {
        reporter?.status("rescanning \(roots.map(\.string).joined(separator: ", ")) (SIGHUP)")
        logger.info("rescanning \(roots.map(\.string).joined(separator: ", ")) (SIGHUP)")
        watcher.requestRescan()
    }

    /// What systemd's STATUS= says: the first index's progress, then what is served.
    func statusLine() -> String {
        let place = view.map { "\(roots[0]) on \($0.mountPoint)" } ?? roots.map(\.string).joined(separator: ", ")
        guard isReady.load(ordering: .acquiring) else {
            let progress = watcher.progress
            return "indexing \(roots.map(\.string).joined(separator: ", ")): \(progress.directoriesVisited) directories, \(progress.bundlesRead) bundles read"
        }
        let counts = roots.compactMap { try? catalogue.counts(under: $0) }
        guard counts.count == roots.count else { return "serving \(place)" }
        var line = "serving \(place): \(counts.map(\.bundles).reduce(0, +)) bundles in \(counts.map(\.directories).reduce(0, +)) directories"
        if let status = try? catalogue.watchStatus() {
            if status.unwatchedDirectories > 0 { line += ", \(status.unwatchedDirectories) unwatched" }
            if status.rescans > 0 { line += ", \(status.rescans) rescans" }
        }
        return line
    }
}

/// A failure a user can act on (a root that cannot be read, a busy mount point, a catalogue
/// watched by another process): one line, exit status 1.
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
