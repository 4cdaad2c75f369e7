import ArgumentParser
import Catalogue
import Codecs
import Foundation

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What the watcher keeping this catalogue current reports: directories watched and unwatched, overflows, rescans.")

    @Flag(help: "Print a JSON object instead of text.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        let catalogue = try common.openCatalogue(.readOnly)
        // What the watcher published beside the catalogue is current even when the catalogue
        // cannot be written; the catalogue's row is for readers who may not read the lock file.
        guard var status = try WatchStatus.published(catalogue: catalogue.path) ?? catalogue.watchStatus() else {
            throw UserError("no watcher has run on \(catalogue.path); start one with `bundlefs watch ROOT`")
        }
        let alive = DaemonLiveness.isAlive(status.pid)
        status.state = DaemonLiveness.state(status.state, alive: alive)
        let counts = try catalogue.counts(under: "/")
        let publishing = try PublishingReport(catalogue: catalogue)
        if json {
            let running = alive && status.state != "stopped"
            var members: [(String, JSONValue)] = [("state", .string(status.state)), ("pid", .integer(Int64(status.pid))), ("running", .bool(running))]
            members.append(("roots", .strings(status.roots)))
            members.append(("startedAt", .number(status.startedAt)))
            members.append(("updatedAt", .number(status.updatedAt)))
            let integers: [(String, Int)] = [
                ("watchedDirectories", status.watchedDirectories), ("unwatchedDirectories", status.unwatchedDirectories),
                ("overflows", status.overflows), ("rescans", status.rescans), ("events", status.events),
                ("batches", status.batches), ("pending", status.pending), ("bundles", counts.bundles),
                ("directories", counts.directories),
            ]
            members += integers.map { ($0.0, JSONValue.integer(Int64($0.1))) }
            members.append(("lastEventAt", status.lastEventAt.map(JSONValue.number) ?? .null))
            members.append(("problem", .optional(status.problem)))
            members.append(("problemSince", status.problemSince.map(JSONValue.number) ?? .null))
            members.append(("publishing", publishing.map(\.json) ?? .null))
            print(JSONValue.object(members).serialized(pretty: true))
            return
        }
        let now = Date().timeIntervalSince1970
        func ago(_ time: Double?) -> String { time.map { String(format: "%.1f s ago", now - $0) } ?? "never" }
        print("""
            state:       \(status.state) (pid \(status.pid))
            roots:       \(status.roots.map(TerminalText.safe).joined(separator: ", "))
            watched:     \(status.watchedDirectories) directories
            unwatched:   \(status.unwatchedDirectories) directories\(status.unwatchedDirectories > 0 ? " (over the watch limit; rescanned periodically)" : "")
            catalogued:  \(counts.bundles) bundles and packages in \(counts.directories) directories
            events:      \(status.events) in \(status.batches) batches, \(status.pending) pending; last \(ago(status.lastEventAt))
            overflows:   \(status.overflows), rescans: \(status.rescans)
            updated:     \(ago(status.updatedAt))
            """)
        if let problem = status.problem {
            print("problem:     \(TerminalText.safe(problem)), since \(ago(status.problemSince))")
        }
        if let publishing { print(publishing.text(now: now)) }
    }
}
