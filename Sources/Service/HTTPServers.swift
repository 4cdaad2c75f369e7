import Catalogue
import Logging
import Publishing
import SymbolServer
import Synchronization
import SystemCalls
import WebInventory

/// What the daemon needs of a running HTTP server.
protocol RunningHTTPServer: AnyObject, Sendable {
    /// Where it listens (with the port chosen when 0 was asked).
    var address: ListenAddress { get }
    /// Stops listening; `wait` then returns.
    func stop()
    /// Blocks until stopped, then releases the server's threads.
    func wait()
}

extension SymbolServer: RunningHTTPServer {}

/// A daemon's HTTP servers, made from their plans in one way whichever command asked for them:
/// one settings path (the environment's), one warning for an address other hosts reach, one
/// line saying where each listens.
final class HTTPServers: Sendable {
    let servers: [any RunningHTTPServer]
    /// Each once: a server shut down must not be asked to close again (NIO refuses the task).
    private let stopped = Atomic<Bool>(false)
    private let waited = Atomic<Bool>(false)

    /// Binds every server now, so that a port in use is an error at start rather than a silent
    /// absence.
    /// - Parameters:
    ///   - roots: the trees files may be served from, asked at each lookup.
    ///   - namesServer: whether an error names the server (`symbols: cannot listen ...`): it
    ///     runs beside other parts; alone, the error is the command's.
    init(_ plans: [HTTPServerPlan], catalogue: Catalogue, roots: @escaping @Sendable () throws -> [FilePath], environment: [String: String],
         namesServer: Bool, logger: Logger) throws(DaemonError) {
        let settings = SymbolServer.Settings.fromEnvironment(environment)
        if let empty = plans.first(where: \.routes.isEmpty) { throw DaemonError("an HTTP server with nothing to answer at \(empty.listen)") }
        var servers: [any RunningHTTPServer] = []
        for plan in plans {
            let server: any RunningHTTPServer
            do {
                // The symbol routes are the server's own; the web inventory answers every other target.
                let pages: SymbolServer.Pages? = try plan.routes.contains(.web) ? Self.pages(plan.web, catalogue: catalogue, threads: settings.lookupThreads) : nil
                server = try SymbolServer(catalogue: catalogue, roots: roots, listen: plan.listen, settings: settings, logger: logger, pages: pages)
            } catch {
                for started in servers {
                    started.stop()
                    started.wait()
                }
                throw DaemonError(namesServer ? "\(plan.name): \(error)" : "\(error)")
            }
            if !server.address.isLoopback {
                let exposed = plan.routes.map(\.exposes).sorted().joined(separator: " and ")
                logger.warning("serving \(plan.name) to the network: whoever reaches \(server.address) reads \(exposed)")
            }
            logger.info("serving \(plan.name) at http://\(server.address)")
            servers.append(server)
        }
        self.servers = servers
    }

    /// The web inventory's answer to the targets the symbol routes leave, made on `threads` lookup
    /// threads: with `--database`, as many connections are kept.
    private static func pages(_ options: HTTPServerPlan.WebOptions, catalogue: Catalogue, threads: Int) throws -> SymbolServer.Pages {
        let fleet = options.database.map { PostgresFleet(url: $0, host: options.databaseHost, connections: threads) }
        let inventory = try WebInventory(catalogue: catalogue, languages: options.languages, host: options.host ?? Publisher.Settings.defaultHost, fleet: fleet)
        return { inventory.answer($0) }
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for server in servers { server.stop() }
    }

    /// Blocks until every server has stopped (once: a later call returns at once).
    func wait() {
        guard !waited.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for server in servers { server.wait() }
    }

    var addresses: [ListenAddress] { servers.map(\.address) }
}
