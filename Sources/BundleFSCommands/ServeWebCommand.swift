import ArgumentParser
import CatalogueCommands
import Foundation
import SymbolServer
import SystemCalls
import WebInventory

/// `serve-web`: the web inventory and the symbol routes on one server (SPEC.md "The web
/// inventory"). Wired here directly for now; `web = ADDR:PORT` through the daemon's plan follows.
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

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard let address = ListenAddress(listen) else { throw ValidationError("--listen: \(listen) is not ADDR:PORT, [IPV6]:PORT or PORT (a numeric address)") }
        if !address.isLoopback && !allowRemote {
            throw ValidationError("--listen \(listen) is reachable from other hosts: give a loopback address, or --allow-remote")
        }
    }

    func run() throws {
        Signals.block()
        let logger = common.logger("bundlefs.web", defaultLevel: .info)
        let catalogue = try common.openCatalogue(.readOnly)
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "localhost"
        let inventory = try WebInventory(catalogue: catalogue, languages: try common.languages(), host: host)
        let server: SymbolServer
        do {
            server = try SymbolServer(catalogue: catalogue, roots: { try catalogue.indexedRoots() }, listen: ListenAddress(listen)!,
                                      settings: .fromEnvironment(ProcessInfo.processInfo.environment), logger: logger,
                                      pages: { inventory.answer($0) })
        } catch let error as SymbolServerError {
            throw UserError("\(error)")
        }
        if !server.address.isLoopback {
            logger.warning("serving the web inventory to the network: whoever reaches \(server.address) reads every catalogued name and path, and the catalogued files")
        }
        logger.info("serving the web inventory at http://\(server.address)")
        try Signals.handle { _ in server.stop() }
        server.wait()
    }
}
