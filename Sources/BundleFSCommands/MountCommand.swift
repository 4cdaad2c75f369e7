import ArgumentParser
import CatalogueCommands
import Foundation
import Service

struct MountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mount",
        abstract: "Watch SOURCE and mount its Finder-like view at MOUNTPOINT.",
        discussion: """
            Packages are shown as single files (a tar of the package) under their display names, \
            localized for --lang; real names still resolve. MOUNTPOINT/.bundlefs/by-id and by-path hold \
            each bundle's effective Info.plist and resolved Resources. The view is read-only and follows \
            changes to SOURCE. Without -f the command returns once the view is mounted and the daemon \
            keeps running; SIGINT or SIGTERM unmounts it (or `fusermount3 -u MOUNTPOINT`).
            """)

    @Argument(help: ArgumentHelp("The directory tree to show.", valueName: "source"))
    var source: String

    @Argument(help: ArgumentHelp("Where to mount the view (an existing, empty directory).", valueName: "mountpoint"))
    var mountPoint: String

    @OptionGroup var common: CommonOptions

    @OptionGroup var publishing: PublishOptions

    @OptionGroup var watching: WatchBackendOption

    @Flag(name: [.customShort("f"), .customLong("foreground")], help: "Stay in the foreground (logs go to stderr).")
    var foreground = false

    @Option(help: ArgumentHelp("Threads serving requests at most: a slow request never holds up the others.", valueName: "n"))
    var threads = MountSettings.defaultThreads

    @Flag(help: "Let other users see the view (non-root users need user_allow_other in /etc/fuse.conf).")
    var allowOther = false

    @Flag(help: "Mount even over a directory that is not empty (what it holds is hidden while the view is mounted).")
    var nonempty = false

    func validate() throws {
        if threads < 1 || threads > 64 { throw ValidationError("--threads must be between 1 and 64") }
    }

    func run() throws {
        if !foreground { try Detaching.startInBackground(extraArguments: ["--foreground"]) }
        let environment = ProcessInfo.processInfo.environment
        let detachedReady = Detaching.daemonReady(environment: environment)
        var settings = MountSettings()
        settings.languages = try common.languages()
        settings.threads = threads
        settings.allowOther = allowOther
        var plan = Daemon.Plan(roots: [absolutePath(source)], catalogue: common.catalogueFile)
        plan.view = Daemon.ViewPlan(mountPoint: absolutePath(mountPoint), settings: settings)
        plan.view?.refusesNonEmpty = !nonempty
        plan.publish = publishing.plan
        plan.watch = .fromEnvironment(environment)
        if let backend = watching.backend { plan.watch.backend = backend }
        try Daemon.start(plan, common: common, label: "bundlefs.mount", ready: detachedReady ?? {})
    }
}
