import ArgumentParser
import CatalogueCommands
import Foundation
import Service
import SymbolServer

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
            serve-symbols beside the view, `web = ADDR:PORT` serve-web).
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

    @Option(help: ArgumentHelp("Also serve the web inventory (and the symbol routes) here, as serve-web does (or the configuration's `web`).",
                               valueName: "addr:port"))
    var web: String?

    @Flag(help: "Let other users see the view (non-root users need user_allow_other in /etc/fuse.conf).")
    var allowOther = false

    func validate() throws {
        if (source == nil) != (mountPoint == nil) { throw ValidationError("give both SOURCE and MOUNTPOINT, or neither (to read the configuration)") }
        if source != nil && configurationFile != nil { throw ValidationError("--config is read only when no SOURCE and MOUNTPOINT are given") }
        if let threads, threads < 1 || threads > 64 { throw ValidationError("--threads must be between 1 and 64") }
        if let symbols, ListenAddress(symbols) == nil { throw ValidationError("--symbols: \(symbols) is not ADDR:PORT, [IPV6]:PORT or PORT") }
        if let web, ListenAddress(web) == nil { throw ValidationError("--web: \(web) is not ADDR:PORT, [IPV6]:PORT or PORT") }
    }

    func run() throws {
        let plan: Daemon.Plan
        do {
            plan = try .serve(try given(), defaultCatalogue: CatalogueChoice().catalogueFile, defaultLanguages: CatalogueChoice().languages(),
                              environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigurationError {
            throw UserError("configuration \(error)")
        }
        try Daemon.start(plan, common: common, label: "bundlefs.serve", defaultLevel: .info)
    }

    /// What the command line gives; the configuration file fills in the rest (`Daemon.Plan.serve`).
    func given() throws -> ServeCommandLine {
        var given = ServeCommandLine()
        given.source = source.map { absolutePath($0) }
        given.mountPoint = mountPoint.map { absolutePath($0) }
        given.configurationFile = configurationFile.map { absolutePath($0) }
        given.catalogue = common.cataloguePath.map { absolutePath($0) }
        given.languages = try common.languageList.map { _ in try common.languages() }
        given.threads = threads
        given.allowOther = allowOther
        given.publish = publishing.url
        given.host = publishing.host
        given.symbols = symbols.flatMap(ListenAddress.init)
        given.web = web.flatMap(ListenAddress.init)
        given.backend = watching.backend
        return given
    }
}
