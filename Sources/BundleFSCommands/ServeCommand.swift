import ArgumentParser
import CatalogueCommands
import Foundation
import Service
import SymbolServer
import SystemCalls

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Watch and mount in the foreground, as a systemd service.",
        discussion: """
            Serves SOURCE at MOUNTPOINT like `bundlefs mount -f`, telling systemd what it does through \
            $NOTIFY_SOCKET: READY=1 once the catalogue is current and the view is mounted, STATUS= \
            with progress and counts, STOPPING=1, and WATCHDOG=1 when $WATCHDOG_USEC is set. SIGHUP \
            rescans the source; SIGTERM or SIGINT unmounts and exits 0. Without SOURCE and MOUNTPOINT \
            it reads a configuration file (--config, default $XDG_CONFIG_HOME/bundlefs/bundlefs.conf) \
            of `key = value` lines: \(ServeConfiguration.keys.joined(separator: ", ")) (`symbols = ADDR:PORT` runs \
            serve-symbols beside the view).
            """)

    @Argument(help: ArgumentHelp("The directory tree to show (or from the configuration).", valueName: "source"))
    var source: String?

    @Argument(help: ArgumentHelp("Where to mount the view (or from the configuration).", valueName: "mountpoint"))
    var mountPoint: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("The configuration file to read when no SOURCE is given.", valueName: "file"))
    var configurationFile: String?

    @OptionGroup var common: CommonOptions

    @OptionGroup var publishing: PublishOptions

    @OptionGroup var watching: WatchBackendOption

    @Option(help: ArgumentHelp("Threads serving requests (default \(MountSettings.defaultThreads), or the configuration's).", valueName: "n"))
    var threads: Int?

    @Option(help: ArgumentHelp("Also serve the catalogue's symbols over HTTP here, as serve-symbols does (or the configuration's `symbols`).",
                               valueName: "addr:port"))
    var symbols: String?

    @Flag(help: "Let other users see the view (non-root users need user_allow_other in /etc/fuse.conf).")
    var allowOther = false

    func validate() throws {
        if (source == nil) != (mountPoint == nil) { throw ValidationError("give both SOURCE and MOUNTPOINT, or neither (to read the configuration)") }
        if source != nil && configurationFile != nil { throw ValidationError("--config is read only when no SOURCE and MOUNTPOINT are given") }
        if let threads, threads < 1 || threads > 64 { throw ValidationError("--threads must be between 1 and 64") }
        if let symbols, ListenAddress(symbols) == nil { throw ValidationError("--symbols: \(symbols) is not ADDR:PORT, [IPV6]:PORT or PORT") }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let (configuration, cataloguePath) = try resolve(environment: environment)
        var settings = MountSettings()
        settings.languages = try common.languageList == nil ? configuration.languages ?? common.languages() : common.languages()
        settings.threads = threads ?? configuration.threads
        settings.allowOther = allowOther || configuration.allowOther
        var plan = Daemon.Plan(roots: [configuration.source], catalogue: cataloguePath)
        plan.view = Daemon.ViewPlan(mountPoint: configuration.mountPoint, settings: settings)
        plan.view?.clearsDeadMount = true
        plan.publish = (publishing.url ?? configuration.publish).map { Daemon.PublishPlan(url: $0, host: publishing.host ?? configuration.host) }
        plan.symbols = symbols.flatMap(ListenAddress.init) ?? configuration.symbols
        plan.notifiesSystemd = true
        plan.watch = .fromEnvironment(environment)
        plan.watch.backend = watching.backend ?? configuration.backend ?? plan.watch.backend
        try Daemon.start(plan, common: common, label: "bundlefs.serve", defaultLevel: .info)
    }

    /// What to serve and which catalogue: the arguments, or the configuration file; --catalogue
    /// wins over the file's `catalogue`, which wins over the default for that file.
    func resolve(environment: [String: String]) throws -> (ServeConfiguration, FilePath) {
        if let source, let mountPoint {
            return (ServeConfiguration(source: absolutePath(source), mountPoint: absolutePath(mountPoint)), common.catalogueFile)
        }
        let file = configurationFile.map { absolutePath($0) } ?? ServeConfiguration.defaultPath(environment: environment)
        let configuration: ServeConfiguration
        do {
            configuration = try ServeConfiguration.load(file, home: FilePath(environment["HOME"] ?? NSHomeDirectory()))
        } catch {
            throw UserError("configuration \(error)")
        }
        let catalogue = common.cataloguePath.map { absolutePath($0) } ?? configuration.catalogue
            ?? ServeConfiguration.defaultCatalogue(forConfiguration: file, defaultCatalogue: common.catalogueFile)
        return (configuration, catalogue)
    }
}
