import ArgumentParser
import CatalogueCommands
import Service
import SymbolServer

/// `serve-web`: the web inventory and the symbol routes on one server (SPEC.md "The web
/// inventory"), through the daemon's plan as `serve-symbols` is: no roots, the catalogue only read.
struct ServeWebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-web",
        abstract: "Serve the catalogue to a browser: search, a page per bundle, icons, reports, and JSON (and the symbol routes).",
        discussion: """
            Read-only, GET and HEAD, the same limits as serve-symbols, whose routes it also answers. Pages are \
            made at each request from the catalogue; names follow the browser's Accept-Language, else --lang. \
            Loopback only unless --allow-remote. See Docs/web.md.
            """)

    @Option(help: ArgumentHelp("Where to listen: ADDR:PORT, [IPV6]:PORT, or PORT alone for 127.0.0.1.", valueName: "addr:port"))
    var listen: String

    @Flag(name: .customLong("allow-remote"), help: "Listen on an address other hosts reach (the pages show every catalogued path).")
    var allowRemote = false

    @OptionGroup var remote: DatabaseOptions

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard let address = ListenAddress(listen) else { throw ValidationError("--listen: \(listen) is not ADDR:PORT, [IPV6]:PORT or PORT (a numeric address)") }
        if !address.isLoopback && !allowRemote {
            throw ValidationError("--listen \(listen) is reachable from other hosts: give a loopback address, or --allow-remote")
        }
    }

    func run() throws {
        var plan = Daemon.Plan(roots: [], catalogue: common.catalogueFile)
        plan.http = [HTTPServerPlan(listen: ListenAddress(listen)!, routes: [.symbols, .web],
                                    web: HTTPServerPlan.WebOptions(languages: try common.languages(), database: remote.database, databaseHost: remote.host))]
        try Daemon.start(plan, common: common, label: "bundlefs.web", defaultLevel: .info)
    }
}
