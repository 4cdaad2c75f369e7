import ArgumentParser
import CatalogueCommands
import Foundation
import Service

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

    @OptionGroup var watching: WatchBackendOption

    @Option(help: ArgumentHelp("Threads to walk with (default: one per core).", valueName: "n"))
    var threads: Int?

    func validate() throws {
        if roots.isEmpty { throw ValidationError("give at least one root to watch") }
    }

    func run() throws {
        var plan = Daemon.Plan(roots: roots.map(absolutePath), catalogue: common.catalogueFile)
        plan.publish = publishing.plan
        plan.watch = .fromEnvironment(ProcessInfo.processInfo.environment)
        if let backend = watching.backend { plan.watch.backend = backend }
        if let threads { plan.scan.threads = threads }
        try Daemon.start(plan, common: common, label: "bundlefs.watch", defaultLevel: .info)
    }
}
