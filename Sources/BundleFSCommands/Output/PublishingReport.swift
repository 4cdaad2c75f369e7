import Catalogue
import Codecs
import Foundation

/// The publisher's part of `bundlefs status`: where to, its state, how far behind, its last error.
/// The destination was stored without its password; nothing here can show one.
struct PublishingReport {
    var status: PublicationStatus
    var backlog: OutboxBacklog
    var running: Bool

    /// nil when this catalogue is not published.
    init?(catalogue: Catalogue) throws {
        guard var status = try catalogue.publicationStatus() else { return nil }
        running = DaemonLiveness.isAlive(status.pid)
        status.state = DaemonLiveness.state(status.state, alive: running)
        self.status = status
        backlog = try catalogue.outboxBacklog()
    }

    /// Seconds the oldest waiting change has waited.
    func lag(now: Double) -> Double { backlog.oldestQueuedAt.map { max(0, now - $0) } ?? 0 }

    /// The status's own JSON form, with what only `status` knows: whether it runs, what waits.
    var json: JSONValue {
        guard case let .object(members)? = try? JSONValue.parse(String(decoding: status.jsonBytes, as: UTF8.self)) else { return .null }
        return .object(members + [
            ("running", .bool(running && status.state != "stopped")), ("waiting", .integer(Int64(backlog.changes))),
            ("lagSeconds", .number(lag(now: Date().timeIntervalSince1970))),
        ])
    }

    func text(now: Double) -> String {
        func ago(_ time: Double?) -> String { time.map { String(format: "%.1f s ago", now - $0) } ?? "never" }
        var lines = [
            "publishing:  to \(TerminalText.safe(status.destination)) as host \(TerminalText.safe(status.host)): \(status.state)",
            "             \(backlog.changes) change\(backlog.changes == 1 ? "" : "s") waiting (lag \(String(format: "%.1f", lag(now: now))) s); last sent \(ago(status.lastSentAt)), whole \(ago(status.lastWholeAt))",
        ]
        if let error = status.lastError { lines.append("             last error: \(TerminalText.safe(error)) (\(ago(status.lastErrorAt)))") }
        return lines.joined(separator: "\n")
    }
}
