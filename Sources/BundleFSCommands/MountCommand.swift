import ArgumentParser
import CatalogueCommands
import Foundation
import Service
import SystemCalls

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

    static let daemonVariable = "BUNDLEFS_DAEMONIZED"

    func validate() throws {
        if threads < 1 || threads > 64 { throw ValidationError("--threads must be between 1 and 64") }
    }

    func run() throws {
        if !foreground { try daemonize() }
        let daemonized = ProcessInfo.processInfo.environment[Self.daemonVariable] == "1"
        if daemonized { _ = setsid() }
        var settings = MountSettings()
        settings.languages = try common.languages()
        settings.threads = threads
        settings.allowOther = allowOther
        var plan = Daemon.Plan(roots: [absolutePath(source)], catalogue: common.catalogueFile)
        plan.view = Daemon.ViewPlan(mountPoint: absolutePath(mountPoint), settings: settings)
        plan.view?.refusesNonEmpty = !nonempty
        plan.publish = publishing.plan
        plan.watch = .fromEnvironment(ProcessInfo.processInfo.environment)
        if let backend = watching.backend { plan.watch.backend = backend }
        try Daemon.start(plan, common: common, label: "bundlefs.mount") {
            if daemonized { Self.reportReadyAndDetach() }
        }
    }

    /// Starts the daemon (this command again, with -f) and waits until it says the view is
    /// mounted; its errors reach the terminal through the inherited stderr.
    func daemonize() throws -> Never {
        let (readEnd, writeEnd) = try Spawn.pipe()
        let arguments = (1..<Int(CommandLine.argc)).map { FileNameCoding.string(cString: CommandLine.unsafeArgv[$0]!) } + ["--foreground"]
        let pid = try Spawn.this(arguments: arguments, environment: [Self.daemonVariable: "1"], standardOutput: writeEnd)
        close(writeEnd)
        var reply: [UInt8] = []
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) == 1 && byte != UInt8(ascii: "\n") { reply.append(byte) }
        if String(decoding: reply, as: UTF8.self) == "ready" { Foundation.exit(0) }
        Foundation.exit(Spawn.wait(pid))
    }

    static func reportReadyAndDetach() {
        let message = Array("ready\n".utf8)
        _ = message.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            for fd in Int32(0)...2 { dup2(null, fd) }
            if null > 2 { close(null) }
        }
    }
}
