public import Catalogue
import Foundation
public import Logging
import Synchronization
import SystemCalls

/// Keeps one host's rows in PostgreSQL equal to the local catalogue: drains the outbox in batches,
/// sends the host whole when PostgreSQL cannot be trusted to have what was sent before, and waits
/// with backoff while PostgreSQL is away, will not write, or another publisher has the host
/// (Docs/postgres.md). Runs on a thread of its own beside the watcher; the
/// outbox is what connects them, so neither waits for the other.
public final class Publisher: Sendable {
    public struct Settings: Sendable {
        /// A libpq connection string; may hold a password, which is never shown (`PostgresURL.redacted`).
        public var url: String
        public var host: String
        /// Changes per PostgreSQL transaction.
        public var batchSize = 1_000
        /// More waiting changes than this, and sending the host whole is cheaper.
        public var wholeThreshold = 10_000
        /// How often, when idle, PostgreSQL's row count is compared with the catalogue's.
        public var verifyInterval: Double = 5
        /// How often the outbox is looked at when idle.
        public var pollInterval: Double = 0.2
        public var firstBackoff: Double = 0.25
        public var maximumBackoff: Double = 8

        public init(url: String, host: String) {
            self.url = url
            self.host = host
        }

        /// The defaults, but for `BUNDLEFS_PUBLISH_CHECK_INTERVAL` (`verifyInterval`) and
        /// `BUNDLEFS_PUBLISH_MAX_BACKOFF` (`maximumBackoff`), in seconds, which let tests see a
        /// database that lost its rows noticed in a second rather than five.
        public static func fromEnvironment(_ environment: [String: String], url: String, host: String) -> Settings {
            var settings = Settings(url: url, host: host)
            if let seconds = environment["BUNDLEFS_PUBLISH_CHECK_INTERVAL"].flatMap(Double.init), seconds > 0 { settings.verifyInterval = seconds }
            if let seconds = environment["BUNDLEFS_PUBLISH_MAX_BACKOFF"].flatMap(Double.init), seconds > 0 {
                settings.maximumBackoff = seconds
                settings.firstBackoff = min(settings.firstBackoff, seconds)
            }
            return settings
        }

        /// The machine's host name, the default `host`.
        public static var defaultHost: String { ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "localhost" }
    }

    private let catalogue: any CatalogueOutbox
    private let settings: Settings
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Where the previous publisher of this host stopped, or nil: send whole first.
    private let resumeFrom: Int64?

    /// Starts queueing changes in the catalogue now, so that nothing written from here on is missed.
    public init(catalogue: any CatalogueOutbox, settings: Settings, logger: Logger) throws {
        self.catalogue = catalogue
        self.settings = settings
        self.logger = logger
        resumeFrom = try catalogue.beginPublishing(PublicationStatus(
            destination: PostgresURL.redacted(settings.url), host: settings.host, pid: getpid(), state: .starting, updatedAt: Date().timeIntervalSince1970))
    }

    public func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "bundlefs-publisher"
        thread.start()
    }

    /// Asks the thread to stop after its current transaction, and waits for it a few seconds: a
    /// transaction waiting on PostgreSQL must not hold the daemon up. What it had not committed
    /// stays in the outbox for the next start.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeUp.signal()
        if finished.wait(timeout: .now() + 5) == .timedOut {
            logger.warning("publishing to \(PostgresURL.redacted(settings.url)) did not finish its transaction; its changes are sent on the next start")
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    private func run() {
        var state = State(settings: settings, sendWholeFirst: resumeFrom == nil)
        var connection: PublishedCatalogue?
        while !isStopping {
            do {
                if connection?.isUsable != true {
                    connection = nil // ends the old session before a new one starts
                    report(&state, .connecting)
                    connection = try PublishedCatalogue(url: settings.url)
                    if let change = connection!.schemaChange { logger.notice("publishing to \(state.destination): \(change)") }
                    state.verified = false
                }
                // Another publisher of the host (the same --host given twice) refuses this one,
                // which retries with backoff and takes over once that one's session ends.
                try connection!.claim(host: settings.host)
                let outcome = try cycle(connection!, &state)
                // A check alone is no recovery: a database that reads but cannot write passes it.
                if outcome != .checked { succeeded(&state) }
                if outcome == .idle { _ = wakeUp.wait(timeout: .now() + settings.pollInterval) }
            } catch {
                // A statement that failed leaves the connection usable; only a broken one is replaced.
                if connection?.isUsable != true { connection = nil }
                // What failed may be the database having lost its schema or rows (a missing table
                // fails every batch the same way): the next step checks both again.
                state.verified = false
                failed(error, &state)
                _ = wakeUp.wait(timeout: .now() + state.backoff)
                state.backoff = min(state.backoff * 2, settings.maximumBackoff)
            }
        }
        connection?.release()
        report(&state, .stopped)
    }

    /// Logs a failure when it is not the one logged last, and records it for `status`. The same
    /// failure is the same SQLSTATE (its message may name a different file each time), or without
    /// one, the same message.
    private func failed(_ error: any Error, _ state: inout State) {
        let message = "\(error)" // PostgresConnection takes the password out of what libpq says
        let kind = (error as? PostgresError)?.sqlState ?? message
        let refused = error is HostTaken
        let now = Date().timeIntervalSince1970
        if state.failure?.kind != kind {
            let retrying = refused ? "this daemon goes on without publishing and takes the host over once that one stops (tried again with backoff, up to"
                : "retrying with backoff (up to"
            logger.warning("publishing to \(state.destination): \(message); \(retrying) \(settings.maximumBackoff) s)")
            state.lastErrorAt = now
        }
        state.failure = Failure(kind: kind, refused: refused, since: state.failure?.since ?? now, attempts: (state.failure?.attempts ?? 0) + 1)
        state.lastError = message
        report(&state, refused ? .refused : .waiting)
    }

    /// A step that did what it had to: the backoff starts again, and a failure that cleared is said.
    private func succeeded(_ state: inout State) {
        state.backoff = settings.firstBackoff
        guard let failure = state.failure else { return }
        state.failure = nil
        let seconds = String(format: "%.1f", Date().timeIntervalSince1970 - failure.since)
        let attempts = "\(failure.attempts) failed attempt\(failure.attempts == 1 ? "" : "s") in \(seconds) s"
        if failure.refused {
            logger.notice("publishing to \(state.destination): took host \(settings.host) over, after \(attempts)")
        } else {
            logger.notice("publishing to \(state.destination) again, after \(attempts)")
        }
    }

    private enum Outcome {
        /// Sent a batch or the host whole.
        case sent
        /// Compared PostgreSQL with the catalogue and found nothing to send whole (reads only).
        case checked
        /// Nothing waiting.
        case idle
    }

    /// One step: a whole send, a batch, or a check.
    private func cycle(_ connection: PublishedCatalogue, _ state: inout State) throws -> Outcome {
        // Intervals on the monotonic clock: a wall clock set back must not put off the next check.
        let now = Clocks.monotonicSeconds()
        let mustVerify = state.sendWholeFirst || !state.verified
        let verifyDue = mustVerify || now - state.verifiedAt >= settings.verifyInterval
        let backlog = try catalogue.outboxBacklog(countingBundles: verifyDue)
        if mustVerify || (verifyDue && backlog.changes == 0) {
            // A schema dropped or damaged is made again first (one read when it is whole).
            if let change = try connection.ensureSchema() { logger.warning("publishing to \(state.destination): \(change)") }
            var outcome = Outcome.checked
            if let whole = try reasonToSendWhole(connection, backlog: backlog, state: state) {
                if whole.lost { lost(whole.reason, &state, connection) }
                try connection.claim(host: settings.host)
                report(&state, .sendingWhole)
                let through = backlog.lastSequence
                let sent = try connection.sendWhole(host: settings.host, from: catalogue, identity: catalogue.identity(), through: through)
                try catalogue.outboxSent(through: through, whole: true, at: Date().timeIntervalSince1970)
                logger.info("sent \(sent) bundles of \(settings.host) whole to \(state.destination): \(whole.reason)")
                state.sendWholeFirst = false
                state.lost = nil
                outcome = .sent
            }
            state.verified = true
            state.verifiedAt = now
            return outcome
        }
        guard let batch = try catalogue.outboxBatch(limit: settings.batchSize) else {
            report(&state, .current)
            return .idle
        }
        report(&state, .sending)
        do {
            try connection.sendChanges(host: settings.host, batch: batch, identity: catalogue.identity(), acknowledged: acknowledged())
        } catch let lost as HostRowsLost {
            // Nothing was written: the next step sends the host whole, without waiting.
            state.lost = lost.reason
            state.verified = false
            return .checked
        }
        try catalogue.outboxSent(through: batch.through, whole: false, at: Date().timeIntervalSince1970)
        return .sent
    }

    /// The last change PostgreSQL committed for this host, as far as this catalogue was told.
    private func acknowledged() throws -> Int64 { max(0, try catalogue.publicationStatus()?.sentThrough ?? 0) }

    /// Why PostgreSQL's rows of this host cannot be brought up to date by the outbox, or nil;
    /// `lost` when the database no longer has what it acknowledged.
    private func reasonToSendWhole(_ connection: PublishedCatalogue, backlog: OutboxBacklog, state: State) throws -> (reason: String, lost: Bool)? {
        if state.sendWholeFirst { return ("the changes since it was last published were not queued", false) }
        if let reason = state.lost { return (reason, true) }
        // Every whole send (this publisher's first, or its predecessor's) wrote the host's row.
        guard let published = try connection.host(settings.host) else { return (HostRowsLost.rowGone.reason, true) }
        if let reason = published.reasonToReplace(identity: try catalogue.identity()) { return (reason, false) }
        if let reason = published.reasonLost(acknowledged: try acknowledged()) { return (reason, true) }
        if backlog.changes > settings.wholeThreshold { return ("\(backlog.changes) changes are waiting", false) }
        if backlog.changes == 0, let bundles = backlog.bundles {
            let rows = try connection.bundleCount(host: settings.host)
            if rows != bundles { return ("the database has \(rows) of its \(bundles) bundles", true) }
        }
        return nil
    }

    /// Says that PostgreSQL lost what it had of the host, in the log and in `status` (as the last
    /// error, kept after the whole send that follows), and has this session's row written again.
    private func lost(_ reason: String, _ state: inout State, _ connection: PublishedCatalogue) {
        connection.claimMayBeLost()
        let message = "PostgreSQL lost what it had of host \(settings.host): \(reason); sending it whole"
        guard state.lastError != message else { return } // a whole send that failed, tried again
        logger.warning("publishing to \(state.destination): \(message)")
        state.lastError = message
        state.lastErrorAt = Date().timeIntervalSince1970
    }

    private func report(_ state: inout State, _ name: PublicationStatus.State) {
        guard state.reported != name || state.reportedError != state.lastError else { return }
        state.reported = name
        state.reportedError = state.lastError
        var status = PublicationStatus(destination: state.destination, host: settings.host, pid: getpid(), state: name,
                                       updatedAt: Date().timeIntervalSince1970)
        status.lastError = state.lastError
        status.lastErrorAt = state.lastErrorAt
        do { try catalogue.writePublicationState(status) } catch { logger.debug("cannot record the publisher's state: \(error)") }
    }

    /// What the loop carries between cycles.
    private struct State {
        let destination: String
        var backoff: Double
        var sendWholeFirst: Bool
        /// Why the last batch found the host's rows not what it left (`HostRowsLost`), until the
        /// whole send that follows.
        var lost: String?
        var verified = false
        /// On the monotonic clock.
        var verifiedAt: Double = -.infinity
        /// Failing since the last step that did what it had to; nil when not.
        var failure: Failure?
        /// The last error, kept after recovery for `status`; since when that failure (by kind) lasts.
        var lastError: String?
        var lastErrorAt: Double?
        var reported: PublicationStatus.State?
        var reportedError: String?

        init(settings: Settings, sendWholeFirst: Bool) {
            destination = PostgresURL.redacted(settings.url)
            backoff = settings.firstBackoff
            self.sendWholeFirst = sendWholeFirst
        }
    }

    /// Failures in a row: the kind last logged (and whether it was a refusal), since when any has
    /// failed, and how often.
    private struct Failure {
        var kind: String
        var refused: Bool
        var since: Double
        var attempts: Int
    }
}
