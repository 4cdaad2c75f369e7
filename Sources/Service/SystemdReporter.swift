import Foundation
import Logging
import SystemCalls

/// What `serve` tells systemd over the notify protocol: progress while the first index runs
/// (with EXTEND_TIMEOUT_USEC, so a long first index is not a hung start), READY=1 once the
/// catalogue is current and the view mounted, counts every 10 s afterwards, STOPPING=1 on the way
/// out, and WATCHDOG=1 at the rate systemd asks for. Silent when not started by systemd.
final class SystemdReporter: Sendable {
    let notifier: SystemdNotifier?
    let watchdogInterval: Double?
    let logger: Logger
    private let phase = ConditionMutex(Phase())

    private struct Phase: Sendable {
        var isReady = false
        var finished = false
    }

    init(environment: [String: String], logger: Logger) {
        notifier = SystemdNotifier(environment: environment)
        watchdogInterval = SystemdNotifier.watchdogInterval(environment: environment)
        self.logger = logger
    }

    /// Runs `body` with a reporting thread beside it sending `progress()` lines and pings.
    func reporting<T>(progress: @escaping @Sendable () -> String, _ body: () throws -> T) throws -> T {
        let thread = try Threads.start(stackSize: 512 << 10) { [self] in report(progress) }
        defer {
            phase.withLock {
                $0.finished = true
                phase.broadcast()
            }
            Threads.join(thread)
        }
        return try body()
    }

    func ready(_ status: String) {
        phase.withLock { $0.isReady = true }
        notifier?.send(["READY=1", "STATUS=" + status])
        logger.info("\(status)")
    }

    func stopping(_ status: String) { notifier?.send(["STOPPING=1", "STATUS=" + status]) }

    func status(_ status: String) { notifier?.send(["STATUS=" + status]) }

    private func report(_ progress: () -> String) {
        var lastStatus = ""
        var nextStatusAt = 0.0
        var nextPingAt = 0.0
        while true {
            let (ready, done) = phase.withLock { ($0.isReady, $0.finished) }
            if done { return }
            let now = Clocks.monotonicSeconds()
            if now >= nextStatusAt {
                let status = progress()
                var fields: [String] = []
                if status != lastStatus { fields.append("STATUS=" + status) }
                if !ready { fields.append("EXTEND_TIMEOUT_USEC=30000000") }
                if !fields.isEmpty { notifier?.send(fields) }
                lastStatus = status
                nextStatusAt = now + (ready ? 10 : 1)
            }
            if let watchdogInterval, now >= nextPingAt {
                notifier?.send(["WATCHDOG=1"])
                nextPingAt = now + watchdogInterval
            }
            let wake = min(nextStatusAt, watchdogInterval == nil ? nextStatusAt : nextPingAt)
            phase.withLock(when: \.finished, timeout: max(0.01, wake - Clocks.monotonicSeconds())) { _ in }
        }
    }
}
