import View
import Foundation
public import Logging
import SystemCalls

/// `bundlefs serve`: the view of `bundlefs mount`, run in the foreground under systemd. It tells
/// systemd what it is doing over the notify protocol: progress while the first index runs,
/// READY=1 once the catalogue is current and the view mounted, counts afterwards, STOPPING=1 on
/// the way out, and WATCHDOG=1 while it is alive.
public final class Service: @unchecked Sendable {
    let mount: ViewMount
    let notifier: SystemdNotifier?
    let watchdogInterval: Double?
    let logger: Logger
    private let lock = ConditionLock()
    private var ready = false
    private var finished = false

    public init(mount: ViewMount, environment: [String: String], logger: Logger) {
        self.mount = mount
        notifier = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        self.logger = logger
    }

    /// Serves until `stop`; the reporter thread sends status lines and watchdog pings meanwhile.
    public func run() throws {
        let reporter = Threads.spawn(stackSize: 512 << 10) { [self] in report() }
        defer {
            lock.withLock {
                finished = true
                lock.broadcast()
            }
            Threads.join(reporter)
        }
        try mount.run { [self] in
            lock.withLock { ready = true }
            notifier?.send(["READY=1", "STATUS=" + statusLine()])
            logger.info("serving \(mount.source) on \(mount.mountPoint)")
        }
    }

    /// SIGTERM/SIGINT: tell systemd, then unmount (run returns).
    public func stop() {
        notifier?.send(["STOPPING=1", "STATUS=unmounting \(mount.mountPoint)"])
        mount.stop()
    }

    /// SIGHUP: rescan the source.
    public func rescan() {
        notifier?.send(["STATUS=rescanning \(mount.source) (SIGHUP)"])
        logger.info("rescanning \(mount.source) (SIGHUP)")
        mount.requestRescan()
    }

    /// While indexing, progress and EXTEND_TIMEOUT_USEC every second (a long first index is not
    /// a hung start); then counts every 10 s; WATCHDOG=1 at the rate systemd asks for.
    private func report() {
        var lastStatus = ""
        var nextStatusAt = 0.0
        var nextPingAt = 0.0
        while true {
            let (isReady, isFinished) = lock.withLock { (ready, finished) }
            if isFinished { return }
            let now = Clocks.monotonicSeconds()
            if now >= nextStatusAt {
                let status = statusLine()
                var fields: [String] = []
                if status != lastStatus { fields.append("STATUS=" + status) }
                if !isReady { fields.append("EXTEND_TIMEOUT_USEC=30000000") }
                if !fields.isEmpty { notifier?.send(fields) }
                lastStatus = status
                nextStatusAt = now + (isReady ? 10 : 1)
            }
            if let watchdogInterval, now >= nextPingAt {
                notifier?.send(["WATCHDOG=1"])
                nextPingAt = now + watchdogInterval
            }
            let wake = min(nextStatusAt, watchdogInterval == nil ? nextStatusAt : nextPingAt)
            lock.withLock { if !finished { _ = lock.wait(seconds: max(0.01, wake - Clocks.monotonicSeconds())) } }
        }
    }

    func statusLine() -> String {
        guard lock.withLock({ ready }) else {
            let progress = mount.progress
            return "indexing \(mount.source): \(progress.directoriesVisited) directories, \(progress.bundlesRead) bundles read"
        }
        guard let counts = try? mount.catalogue.counts(under: mount.source) else { return "serving \(mount.source) on \(mount.mountPoint)" }
        var line = "serving \(mount.source) on \(mount.mountPoint): \(counts.bundles) bundles in \(counts.directories) directories"
        if let status = try? mount.catalogue.watchStatus() {
            if status.unwatchedDirectories > 0 { line += ", \(status.unwatchedDirectories) unwatched" }
            if status.rescans > 0 { line += ", \(status.rescans) rescans" }
        }
        return line
    }
}
