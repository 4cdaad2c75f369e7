import ArgumentParser
import BundleModel
import Catalogue
import Foundation
import Indexer
import Scanner
import SystemCalls
import Watcher

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Index the roots, then keep the catalogue current until SIGINT or SIGTERM.",
        discussion: """
            Changes are reflected within a fraction of a second. A queue overflow is recovered from by \
            rescanning (with backoff); directories beyond the inotify watch limit are rescanned \
            periodically and counted in `bundlefs status`. SIGHUP asks for a rescan.
            """)

    @Argument(help: ArgumentHelp("Directory trees to watch.", valueName: "root"))
    var roots: [String]

    @OptionGroup var common: CommonOptions

    @Option(help: ArgumentHelp("Threads to walk with (default: one per core).", valueName: "n"))
    var threads: Int?

    func validate() throws {
        if roots.isEmpty { throw ValidationError("give at least one root to watch") }
    }

    func run() throws {
        // Before any thread exists, so that every thread inherits the mask and only the signal
        // thread sees SIGINT and SIGTERM.
        Signals.block()
        let logger = common.logger("bundlefs.watch", defaultLevel: .info)
        var canonical: [FilePath] = []
        for root in roots {
            do { canonical.append(try Indexer.canonicalRoot(absolutePath(root))) } catch { throw UserError("\(error)") }
        }
        let catalogue = try common.openCatalogue(.readWrite)
        var options = ScanOptions()
        if let threads { options.threads = threads }
        let watcher: Watcher
        do {
            watcher = try Watcher(catalogue: catalogue, roots: canonical, settings: .fromEnvironment(ProcessInfo.processInfo.environment),
                                  options: options, logger: logger)
        } catch let error as WatchError {
            throw UserError("\(error)")
        }
        Signals.handle { signal in
            if signal == SIGHUP { watcher.requestRescan() } else { watcher.stop() }
        }
        try watcher.run()
    }
}

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
        let alive = kill(status.pid, 0) == 0 || errno == EPERM
        if !alive && status.state != "stopped" { status.state = "not running (it stopped without saying so)" }
        let counts = try catalogue.counts(under: "/")
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
    }
}
