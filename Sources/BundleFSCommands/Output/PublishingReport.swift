import Catalogue
import CatalogueCommands
import Codecs
import Foundation

/// The publisher's part of `bundlefs status`: where to, its state, how far behind, its last error.
/// The destination was stored without its password; nothing here can show one.
struct PublishingReport {
    var status: PublicationStatus
    var backlog: OutboxBacklog
    var running: Bool
    /// The state to show: the recorded one, or that the publisher is gone without having stopped.
    var shownState: String

    /// nil when this catalogue is not published.
    init?(catalogue: Catalogue) throws {
        guard let status = try catalogue.publicationStatus() else { return nil }
        running = DaemonLiveness.isAlive(status.pid)
        shownState = DaemonLiveness.state(status.state.rawValue, alive: running)
        self.status = status
        backlog = try catalogue.outboxBacklog()
    }

    /// Seconds the oldest waiting change has waited.
    func lag(now: Double) -> Double { backlog.oldestQueuedAt.map { max(0, now - $0) } ?? 0 }

    /// The status's own JSON form, with what only `status` knows: whether it runs, what waits.
    var json: JSONValue {
        guard case let .object(members)? = try? JSONValue.parse(String(decoding: status.jsonBytes, as: UTF8.self)) else { return .null }
        return .object(members.map { $0.0 == "state" ? ("state", .string(shownState)) : $0 } + [
            ("running", .bool(running && status.state != .stopped)), ("waiting", .integer(Int64(backlog.changes))),
            ("lagSeconds", .number(lag(now: Date().timeIntervalSince1970))),
        ])
    }

    func text(now: Double) -> String {
        func ago(_ time: Double?) -> String { time.map { String(format: "%.1f s ago", now - $0) } ?? "never" }
        var lines = [
            "publishing:  to \(TerminalText.safe(status.destination)) as host \(TerminalText.safe(status.host)): \(shownState)",
            "             \(backlog.changes) change\(backlog.changes == 1 ? "" : "s") waiting (lag \(String(format: "%.1f", lag(now: now))) s); last sent \(ago(status.lastSentAt)), whole \(ago(status.lastWholeAt))",
        ]
        if let error = status.lastError { lines.append("             last error: \(TerminalText.safe(error)) (\(ago(status.lastErrorAt)))") }
        return lines.joined(separator: "\n")
    }
}
