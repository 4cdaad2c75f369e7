import Catalogue
import Indexer
public import Logging
import Publishing
import SystemCalls
import View
import Synchronization
import Watcher
#if canImport(Glibc)
import Glibc
#endif

/// The one place the long-running parts are put together (`watch`, `mount`, `serve`,
/// `serve-symbols`): the catalogue, the watcher keeping it current, the view on top of it, the
/// publisher copying it to PostgreSQL, the HTTP servers reading it, signals, and systemd's notify
/// protocol. A command says what it wants (`Plan`) and calls `run`; the daemon starts the parts,
/// hands the watcher's updates to the view, and stops them in order on SIGINT/SIGTERM (SIGHUP:
/// rescan). A plan without roots has no watcher: it only reads the catalogue, over HTTP.
public final class Daemon: Sendable {
    let catalogue: Catalogue
    let roots: [FilePath]
    /// nil when the plan watches nothing.
    let watcher: Watcher?
    let view: ViewMount?
    let publisher: Publisher?
    let http: HTTPServers
    let reporter: SystemdReporter?
    let logger: Logger
    /// Set once the first index is done (and the view mounted).
    private let isReady = Atomic<Bool>(false)

    /// Readies the process (before any thread of its own starts: signals go to one thread, and
    /// the malloc arenas are few), then opens the catalogue and makes every part. Errors a user
    /// can act on are `DaemonError`s.
    public init(plan: Plan, environment: [String: String], logger: Logger, publishLogger: Logger) throws {
        try Self.check(plan)
        // Only the signal thread takes SIGINT/SIGTERM/SIGHUP, only the FUSE loop's the SIGUSR1
        // that wakes it to stop.
        Signals.block(Signals.stopping + [SIGUSR1])
        // The arenas the watcher's, scanners' and view's threads would fill; an HTTP server alone
        // keeps glibc's default.
        if plan.watches { Memory.limitArenasForDaemon() }
        self.logger = logger
        var roots: [FilePath] = []
        for root in plan.roots {
            do { roots.append(try Indexer.canonicalRoot(root)) } catch { throw DaemonError("\(error)") }
        }
        self.roots = roots
        do {
            // Without a watcher, another process (`watch`) keeps the catalogue current: only read it.
            // A server of a fleet's pages needs none; one there still serves its files.
            if plan.readsOnlyAFleet, (try? FileStatus.of(plan.catalogue, followSymlinks: true)) == nil {
                catalogue = try Catalogue.empty()
            } else {
                catalogue = try plan.watches ? Catalogue(path: plan.catalogue, mode: .readWrite, lockWait: Catalogue.daemonLockWait)
                                             : Catalogue(path: plan.catalogue, mode: .readOnly)
            }
        } catch let error as CatalogueError {
            throw DaemonError("\(error)")
        }
        if plan.watches {
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
        } else {
            watcher = nil
            view = nil
        }
        if let publish = plan.publish {
            publisher = try Publisher(catalogue: catalogue, settings: .fromEnvironment(environment, url: publish.url, host: publish.host ?? Publisher.Settings.defaultHost),
                                      logger: publishLogger)
        } else {
            publisher = nil
            if plan.watches, (try? catalogue.publicationStatus()) != nil { try catalogue.endPublishing() }
        }
        // Files are served from the daemon's roots; without a watcher, from the catalogue's.
        let (catalogue, watchedRoots) = (catalogue, roots)
        let servedRoots: @Sendable () throws -> [FilePath]
        if plan.watches { servedRoots = { watchedRoots } } else { servedRoots = { try catalogue.indexedRoots() } }
        http = try HTTPServers(plan.http, catalogue: catalogue, roots: servedRoots, environment: environment,
                               namesServer: plan.watches || plan.http.count > 1, logger: logger)
        reporter = plan.notifiesSystemd ? SystemdReporter(environment: environment, logger: logger) : nil
    }

    /// A plan the daemon can run: what needs a watcher has one, and it runs something.
    static func check(_ plan: Plan) throws(DaemonError) {
        guard !plan.watches else { return }
        if plan.view != nil { throw DaemonError("a view needs a root to watch") }
        if plan.publish != nil { throw DaemonError("publishing needs a root to watch") }
        if plan.http.isEmpty { throw DaemonError("nothing to run: no root to watch and nothing to serve") }
    }

    /// Runs until SIGINT/SIGTERM (or, with a view, an unmount from outside); `ready` once the
    /// catalogue is current (and the view mounted), or, without a watcher, once listening.
    public func run(ready: @escaping @Sendable () -> Void = {}) throws {
        try Signals.handle { [self] signal in
            // Without a watcher there is nothing to rescan: SIGHUP stops, as `serve-symbols`' always did.
            if signal == SIGHUP, watcher != nil { rescan() } else { stop() }
        }
        publisher?.start()
        defer { publisher?.stop() }
        defer {
            http.stop()
            http.wait()
        }
        let announce: @Sendable () -> Void = { [self] in
            isReady.store(true, ordering: .releasing)
            reporter?.ready(statusLine())
            ready()
        }
        try reporter.map { try $0.reporting(progress: { [self] in statusLine() }) { try serve(ready: announce) } } ?? serve(ready: announce)
    }

    private func serve(ready: @escaping @Sendable () -> Void) throws {
        if let view {
            try view.run(ready: ready)
        } else if let watcher {
            try watcher.run(ready: ready)
        } else {
            ready()
            http.wait()
        }
    }

    /// SIGINT/SIGTERM: stop watching, unmount (or stop serving); `run` returns.
    public func stop() {
        reporter?.stopping(view.map { "unmounting \($0.mountPoint)" } ?? "stopping")
        if let view { view.stop() } else if let watcher { watcher.stop() } else { http.stop() }
    }

    /// SIGHUP: rescan the roots.
    public func rescan() {
        guard let watcher else { return }
        reporter?.status("rescanning \(roots.map(\.string).joined(separator: ", ")) (SIGHUP)")
        logger.info("rescanning \(roots.map(\.string).joined(separator: ", ")) (SIGHUP)")
        watcher.requestRescan()
    }

    /// What systemd's STATUS= says: the first index's progress, then what is served.
    func statusLine() -> String {
        guard let watcher else { return "serving " + http.addresses.map { "http://\($0)" }.joined(separator: ", ") }
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
