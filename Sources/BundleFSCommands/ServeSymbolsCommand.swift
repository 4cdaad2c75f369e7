import ArgumentParser
import CatalogueCommands
import Service
import SymbolServer

struct ServeSymbolsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-symbols",
        abstract: "Serve the catalogue's executables and debug symbols over HTTP, to debuginfod clients and symbolicator.",
        discussion: """
            Answers GET and HEAD, read-only: debuginfod's /buildid/ID/debuginfo and /buildid/ID/executable \
            (ID an ELF build-id or a Mach-O UUID without hyphens, any case), and symbolicator's layouts as \
            /native/... and /unified/... (see Docs/symbols.md). Only catalogued files are served, opened \
            inside the catalogue's roots. Point gdb or debuginfod-find at it with \
            DEBUGINFOD_URLS=http://ADDR:PORT. Logs one line per request at --log-level debug; SIGINT or \
            SIGTERM stops it. `symbols = ADDR:PORT` in the service configuration runs it beside `serve`.
            """)

    @Option(help: ArgumentHelp(
        "Where to listen: ADDR:PORT, [IPV6]:PORT, or PORT alone for 127.0.0.1.",
        discussion: "Loopback unless an address that other hosts reach is given (0.0.0.0:PORT for all).", valueName: "addr:port"))
    var listen: String

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if ListenAddress(listen) == nil { throw ValidationError("--listen: \(listen) is not ADDR:PORT, [IPV6]:PORT or PORT (a numeric address)") }
    }

    func run() throws {
        var plan = Daemon.Plan(roots: [], catalogue: common.catalogueFile)
        plan.http = [HTTPServerPlan(listen: ListenAddress(listen)!, routes: [.symbols])]
        try Daemon.start(plan, common: common, label: "bundlefs.symbols", defaultLevel: .info)
    }
}
