import ArgumentParser
import BundleModel
import Catalogue
import Foundation
import Indexer
import Publishing
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

    @OptionGroup var publishing: PublishOptions

    @Option(help: ArgumentHelp("Threads to walk with (default: one per core).", valueName: "n"))
    var threads: Int?

    func validate() throws {
        if roots.isEmpty { throw ValidationError("give at least one root to watch") }
    }

    func run() throws {
        // Before any thread exists, so that every thread inherits the mask and only the signal
        // thread sees SIGINT and SIGTERM.
        Signals.block()
        Memory.limitArenasForDaemon()
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
        let publisher = try PublishOptions.start(url: publishing.url, host: publishing.host, catalogue: catalogue, logger: logger)
        defer { publisher?.stop() }
        Signals.handle { signal in
            if signal == SIGHUP { watcher.requestRescan() } else { watcher.stop() }
        }
        try watcher.run()
    }
}
