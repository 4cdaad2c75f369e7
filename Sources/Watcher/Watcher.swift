public import Catalogue
public import Logging
public import Scanner
public import SystemCalls
import BundleModel
import Indexer
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public enum WatchError: Error, CustomStringConvertible {
    case alreadyWatched(catalogue: FilePath)
    case fanotifyUnavailable(SystemError)

    public var description: String {
        switch self {
        case let .alreadyWatched(path): "another bundlefs watcher is already keeping \(path) current"
        case let .fanotifyUnavailable(error):
            "--backend fanotify: \(error.operation)\(error.path.map { " \($0)" } ?? ""): \(error.message)"
                + (error.errno == EPERM ? " (marking a whole filesystem needs CAP_SYS_ADMIN; use --backend auto or inotify)" : "")
        }
    }
}

/// Keeps the catalogue equal to the trees under its roots: indexes them (incrementally, with
/// inotify watches added before each directory is listed), then turns events into re-readings of
/// the directories they name. Events are hints; each batch re-lists the directories involved and
/// reconciles them with what is catalogued, so lost or reordered events cannot leave the catalogue
/// wrong for long: a queue overflow or the watch limit falls back to rescans.
///
/// Runs on the thread that calls `run()`; `stop()` and `requestRescan()` may be called from any
/// thread (the signal thread, say).
/// Unchecked: its vars belong to the thread in `run` (or are set before it starts); other threads
/// reach only `stop`, `requestRescan` (atomics), `progress` and the reader (both Sendable).
public final class Watcher: @unchecked Sendable {
    let catalogue: any WatchedCatalogue
    let roots: [FilePath]
    let settings: WatchSettings
    let options: ScanOptions
    let logger: Logger
    let inotify: Inotify
    let installer: WatchInstaller
    let reader: EventReader
    let tree = DirectoryTree()
    let lock: FileLock
    var scanRoots: [FilePath: ScanRoot] = [:]
    var claimed = ClaimedTypes()
    /// What each bundle brings to rule 14, as of the last batch: the one the last (re)scan's index
    /// computed claims with; nil when none did (a rescan that failed), until an application changes.
    var claimBook: PackageClaimBook?
    var status: WatchStatus

    private let stopRequested = Atomic<Bool>(false)
    private let rescanRequested = Atomic<Bool>(false)
    var overflowBackoff: Double
    // Deadlines and intervals, on the monotonic clock (`now()`): setting the wall clock back must
    // not stop status writes or rescans. The status row's times are wall times (`wallTime()`).
    var rescanDueAt: Double?
    var lastRescanFinishedAt = 0.0
    var nextUnwatchedRescanAt = 0.0
    var nextStatusAt = 0.0
    var lastStatusWrite = 0.0
    var reportedUnwatched = 0
    /// Set while the catalogue cannot be kept current (see `Watcher+Faults`).
    var fault: WatchFault?
    /// The catalogue file was deleted or replaced: open the one at the path before writing again.
    var needsReopen = false
    /// Told what each turn changed, after it is written (see `CatalogueUpdate`), on this thread;
    /// set before `run`.
    public var observer: (@Sendable (CatalogueUpdate) -> Void)?
    /// Counters of the scans this watcher runs (the first index and rescans), for status lines.
    public let progress = ScanProgress()
    var pendingUpdate = CatalogueUpdate()

    /// - Parameters:
    ///   - roots: canonical absolute paths (see `Indexer.canonicalRoot`).
    public init(catalogue: any WatchedCatalogue, roots: [FilePath], settings: WatchSettings, options: ScanOptions, logger: Logger) throws {
        guard let lock = try FileLock(path: Catalogue.lockPath(catalogue: catalogue.path)) else { throw WatchError.alreadyWatched(catalogue: catalogue.path) }
        self.lock = lock
        self.catalogue = catalogue
        self.roots = roots
        self.settings = settings
        self.logger = logger
        inotify = try Inotify()
        let marks = try Self.filesystemMarks(settings.backend, roots: roots, logger: logger)
        installer = WatchInstaller(inotify: inotify, marks: marks, limit: settings.effectiveWatchLimit)
        reader = try EventReader(inotify: inotify, marks: marks, limit: settings.maximumQueuedEvents, readInterval: settings.readInterval)
        var options = options
        // The catalogue's own directory changes with every write: never walk or watch it.
        options.excluded.insert(catalogue.path.parent)
        self.options = options
        overflowBackoff = settings.overflowBackoff
        status = WatchStatus(pid: getpid(), state: .starting, roots: roots.map(\.string), startedAt: Self.wallTime())
    }

    public func stop() { stopRequested.store(true, ordering: .relaxed); reader.wakeConsumer() }

    /// Rescan every root soon (SIGHUP).
    public func requestRescan() { rescanRequested.store(true, ordering: .relaxed); reader.wakeConsumer() }

    var isStopping: Bool { stopRequested.load(ordering: .relaxed) }

    /// Indexes the roots, then processes events until `stop()`; `ready` is called once the
    /// catalogue is current and every directory is watched (or counted as unwatched).
    /// Only a root that cannot be read at the start ends it with an error: from then on, what goes
    /// wrong (the catalogue's disk fills, another process locks it) is retried (`Watcher+Faults`).
    public func run(ready: () -> Void = {}) throws {
        writeStatus()
        for root in roots {
            tree.addRoot(root)
            scanRoots[root] = try ScanRoot(path: root, confinement: .trustedLinksOut)
        }
        claimed = (try? catalogue.claimedTypes()) ?? ClaimedTypes()
        try reader.start()
        defer { reader.stop() }
        let started = Self.now()
        surviving { try rescanAll(reason: nil) }
        if fault == nil {
            logger.info("watching \(tree.watchedCount) directories under \(roots.map(\.string).joined(separator: ", ")) with \(backendDescription) after \(Self.seconds(Self.now() - started)) s")
        }
        reportUnwatched()
        status.state = .watching
        writeStatus()
        ready()
        while !isStopping {
            surviving { try runOnce() }
            // A turn that failed still tells the view what it read (`stage`), now rather than
            // after the next turn's wait.
            publishUpdate()
        }
        status.state = .stopped
        status.pending = reader.pending
        writeStatus()
        logger.info("stopped")
    }

    /// One turn of the loop: wait for events (or a timer), then act on them.
    func runOnce() throws {
        let now = Self.now()
        var wait = max(0.01, nextStatusAt - now)
        if tree.unwatchedCount > 0 { wait = min(wait, max(0.01, nextUnwatchedRescanAt - now)) }
        if let due = rescanDueAt { wait = min(wait, max(0.001, due - now)) }
        var events = reader.take(waitingUpTo: wait)
        if !events.isEmpty {
            // Let a burst settle, so an editor's several steps are one batch.
            let first = Self.now()
            while Self.now() - first < settings.maximumBatchDelay && !isStopping {
                let more = reader.take(waitingUpTo: settings.settleSeconds)
                if more.isEmpty && !Self.endsWithUnpairedMove(events) { break }
                events += more
                if more.isEmpty { break }
            }
            status.lastEventAt = Self.wallTime()
        }
        if rescanRequested.exchange(false, ordering: .relaxed) { scheduleRescan(reason: "a rescan was requested", backoff: 0) }
        if let due = rescanDueAt {
            if Self.now() >= due {
                // Everything read before the rescan is covered by it, if it succeeds; if it fails,
                // the view is still told what these events found.
                rescanDueAt = nil
                do {
                    try recover()
                } catch {
                    failed(Catalogue.explain(error))
                    if !events.isEmpty { try process(events, writing: false) }
                }
            } else if fault != nil && !events.isEmpty {
                // The catalogue cannot take them, but the view still follows the tree; the rescan
                // that ends the fault writes what they found.
                try process(events, writing: false)
            }
        } else if !events.isEmpty {
            try process(events)
        }
        if tree.unwatchedCount > 0 && Self.now() >= nextUnwatchedRescanAt {
            try rescanUnwatched()
            nextUnwatchedRescanAt = Self.now() + settings.rescanInterval
        }
        publishUpdate()
        if Self.now() >= nextStatusAt {
            checkCatalogueFile()
            writeStatus()
        }
    }

    func publishUpdate() {
        guard !pendingUpdate.isEmpty else { return }
        let update = pendingUpdate
        pendingUpdate = CatalogueUpdate()
        observer?(update)
    }

    func scheduleRescan(reason: String, backoff: Double) {
        guard rescanDueAt == nil else { return }
        rescanDueAt = Self.now() + backoff
        logger.warning("\(reason); rescanning \(backoff > 0 ? "in \(Self.seconds(backoff, digits: 1)) s" : "now")")
    }

    /// A queue overflow: events were lost, so what they would have said is read from the tree. A
    /// rescan lists only directories whose ctime changed, and repeated overflows back off, doubling
    /// the wait, instead of rescanning in a loop.
    func overflowed() {
        status.overflows += 1
        let sinceLast = Self.now() - lastRescanFinishedAt
        if sinceLast < max(10, overflowBackoff * 4) {
            overflowBackoff = min(settings.maximumOverflowBackoff, overflowBackoff * 2)
        } else {
            overflowBackoff = settings.overflowBackoff
        }
        scheduleRescan(reason: "the \(installer.marks == nil ? "inotify" : "event") queue overflowed (overflow \(status.overflows))", backoff: overflowBackoff)
    }

    func reportUnwatched() {
        let unwatched = tree.unwatchedCount
        // Said once when the limit is reached, not again at each count it takes: the status
        // keeps the current count.
        if unwatched > 0 && reportedUnwatched == 0 {
            logger.warning("the watch limit (\(installer.limit) watches) is reached: \(unwatched) directories are unwatched and are rescanned every \(Int(settings.rescanInterval)) s")
        } else if unwatched == 0 && reportedUnwatched > 0 {
            logger.info("every directory is watched again")
        }
        reportedUnwatched = unwatched
    }

    /// Publishes the status beside the catalogue (always possible) and writes it into the
    /// catalogue (when that can be written: a failure is a fault like any other write's).
    func writeStatus() {
        status.updatedAt = Self.wallTime()
        status.watchedDirectories = tree.watchedCount
        status.unwatchedDirectories = tree.unwatchedCount
        status.events = reader.total
        status.eventsOutside = reader.droppedOutside
        status.backend = installer.marks == nil ? "inotify" : "fanotify"
        status.inotifySubtrees = installer.marks?.inotifySubtrees ?? []
        status.pending = reader.pending
        status.problem = fault?.reason
        status.problemSince = fault?.since
        publishStatus()
        lastStatusWrite = Self.now()
        nextStatusAt = lastStatusWrite + settings.statusInterval
        guard fault == nil else { return }
        surviving { try catalogue.writeWatchStatus(status) }
    }

    /// The status in the lock file, where `bundlefs status` reads it first.
    func publishStatus() {
        do {
            try lock.publish(status.jsonBytes)
        } catch {
            logger.debug("cannot publish the status in the lock file: \(error)")
        }
    }

    /// Seconds on the monotonic clock, for deadlines and intervals.
    static func now() -> Double { Clocks.monotonicSeconds() }

    /// Seconds since the epoch, for what the status row and the catalogue record.
    static func wallTime() -> Double { Double(Clocks.wallNanoseconds()) / 1e9 }

    /// `1.25` for a log line (`digits` after the point), without Foundation's formatter.
    static func seconds(_ value: Double, digits: Int = 2) -> String {
        let scale = digits == 1 ? 10 : 100
        let fixed = Int((max(0, value) * Double(scale)).rounded())
        let fraction = String(fixed % scale)
        return "\(fixed / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    static func endsWithUnpairedMove(_ events: [InotifyEvent]) -> Bool {
        guard let last = events.last(where: { $0.mask.contains(.movedFrom) || $0.mask.contains(.movedTo) }) else { return false }
        return last.mask.contains(.movedFrom)
    }
}
