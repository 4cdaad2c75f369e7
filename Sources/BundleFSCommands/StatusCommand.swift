import ArgumentParser
import Catalogue
import CatalogueCommands
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
        guard let status = try WatchStatus.published(catalogue: catalogue.path) ?? catalogue.watchStatus() else {
            throw UserError("no watcher has run on \(catalogue.path); start one with `bundlefs watch ROOT`")
        }
        let alive = DaemonLiveness.isAlive(status.pid)
        let state = DaemonLiveness.state(status.state.rawValue, alive: alive)
        let counts = try catalogue.counts(under: "/")
        let publishing = try PublishingReport(catalogue: catalogue)
        if json {
            // The status's own JSON form, with what only `status` knows: whether it runs, counts, publishing.
            guard case var .object(members)? = try? JSONValue.parse(String(decoding: status.jsonBytes, as: UTF8.self)) else {
                throw UserError("the status of \(catalogue.path) cannot be shown")
            }
            members = members.map { $0.0 == "state" ? ("state", .string(state)) : $0 }
            members += [
                ("running", .bool(alive && status.state != .stopped)),
                ("bundles", .integer(Int64(counts.bundles))), ("directories", .integer(Int64(counts.directories))),
                ("publishing", publishing.map(\.json) ?? .null),
            ]
            print(JSONValue.object(members).serialized(pretty: true))
            return
        }
        let now = Date().timeIntervalSince1970
        func ago(_ time: Double?) -> String { time.map { String(format: "%.1f s ago", now - $0) } ?? "never" }
        print("""
            state:       \(state) (pid \(status.pid))
            roots:       \(status.roots.map(TerminalText.safe).joined(separator: ", "))
            backend:     \(status.backend ?? "inotify")\(status.inotifySubtrees.isEmpty ? "" : "; inotify for " + status.inotifySubtrees.map(TerminalText.safe).joined(separator: ", "))
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
