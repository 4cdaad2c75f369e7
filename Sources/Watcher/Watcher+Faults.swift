import Catalogue

/// Why the catalogue is not current, since when, and when to try again.
struct WatchFault {
    var reason: String
    /// Wall time, for the status; `startedAt` is on the monotonic clock, for durations.
    var since: Double
    var startedAt: Double
    var attempts = 0
    var backoff: Double
}

/// Faults: the catalogue's disk fills, another process holds it locked, it is deleted or replaced,
/// it becomes read-only. None of them ends the watcher: it keeps its tree and watches, keeps
/// reading events, says what is wrong (log and status, published beside the catalogue since the
/// catalogue itself may be unwritable), and tries again with backoff. Events are hints and the
/// tree is the truth: what failed to be written is found again by the rescan that ends a fault.
extension Watcher {
    /// Runs a step of the loop; a failure becomes a fault instead of the end of the watcher.
    func surviving(_ step: () throws -> Void) {
        do { try step() } catch { failed(Catalogue.explain(error)) }
    }

    /// Notes a failure and schedules the retry (a rescan). Several failures within one attempt
    /// count once.
    func failed(_ reason: String) {
        let now = Self.now()
        if var current = fault {
            let retryPending = (rescanDueAt ?? 0) > now
            current.reason = reason
            if !retryPending {
                current.attempts += 1
                current.backoff = min(settings.maximumFaultBackoff, current.backoff * 2)
                logger.warning("the catalogue is still not current (for \(Self.seconds(now - current.startedAt, digits: 1)) s): \(reason); trying again in \(Self.seconds(current.backoff, digits: 1)) s")
            }
            fault = current
        } else {
            fault = WatchFault(reason: reason, since: Self.wallTime(), startedAt: now, backoff: settings.faultBackoff)
            logger.error("cannot keep the catalogue current: \(reason); the tree stays watched and the view keeps serving; trying again in \(Self.seconds(settings.faultBackoff, digits: 1)) s")
        }
        rescanDueAt = now + (fault?.backoff ?? settings.faultBackoff)
        status.state = .retrying
        status.problem = fault?.reason
        status.problemSince = fault?.since
        publishStatus()
    }

    /// A catalogue deleted or replaced under the watcher takes the writes nowhere (the deleted
    /// file) or loses them (the replaced one): open the file at the path and rebuild it.
    func checkCatalogueFile() {
        guard !needsReopen, !catalogue.isStillAtItsPath() else { return }
        needsReopen = true
        logger.warning("the catalogue at \(catalogue.path) was deleted or replaced: opening the file there and rescanning")
        failed("the catalogue file was deleted or replaced; rebuilding it")
        rescanDueAt = Self.now()
    }

    /// Ends an overflow or a fault: reopens the catalogue if needed, then rescans. While a fault
    /// lasts, a status write goes first: it fails fast where a rescan would fail late.
    func recover() throws {
        if needsReopen {
            try catalogue.reopen()
            needsReopen = false
        }
        if fault != nil { try catalogue.writeWatchStatus(status) }
        try rescanAll(reason: fault == nil ? "overflow" : "recovery")
        if let ended = fault {
            fault = nil
            logger.info("the catalogue is current again, after \(Self.seconds(Self.now() - ended.startedAt, digits: 1)) s and \(ended.attempts + 1) attempts")
            writeStatus()
        }
    }
}
