import BundleModel
public import Catalogue
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
public import SystemCalls
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `serve-symbols` (SPEC.md "Symbol stores for the tools people already run"): an HTTP server,
/// read-only, answering debuginfod's `/buildid/ID/{debuginfo,executable}` and symbolicator's
/// `native` and `unified` layouts (`SymbolRoute`) from the catalogue (`Catalogue.symbolFile`).
/// Bounded: connections (`ConnectionTable`), request heads (NIO's decoder limits), time to send a
/// request's head. SwiftNIO underneath (Docs/dependencies.md says why).
public final class SymbolServer: Sendable {
    public struct Settings: Sendable {
        /// Connections held at once; at the bound the longest idle one makes room.
        public var maxConnections = 4_096
        /// Time to send a request's head, from the connection or the previous answer: slow
        /// headers and idle keep-alive connections are closed after it.
        public var headerTimeout = Duration.seconds(10)
        /// A request target longer than this is 414; no valid one is near it.
        public var maxTargetLength = 1_024
        /// Bounds on a request head, for NIO's decoder: bytes per header line (the request line
        /// too), bytes in all, fields.
        public var maxHeaderLine = 8 * 1_024
        public var maxHead = 16 * 1_024
        public var maxHeaderFields = 64
        /// Event loop threads (connections) and lookup threads (the catalogue and `open`).
        public var loopThreads = min(System.coreCount, 4)
        public var lookupThreads = min(System.coreCount, 4)

        public init() {}

        /// The defaults, but for `BUNDLEFS_SYMBOLS_HEADER_TIMEOUT_MS`, which lets the tests see a
        /// slow client cut off in a second rather than ten.
        public static func fromEnvironment(_ environment: [String: String]) -> Settings {
            var settings = Settings()
            if let text = environment["BUNDLEFS_SYMBOLS_HEADER_TIMEOUT_MS"], let milliseconds = Int(text), milliseconds > 0 {
                settings.headerTimeout = .milliseconds(milliseconds)
            }
            return settings
        }
    }

    /// What every connection's handler shares.
    struct Shared: Sendable {
        let settings: Settings
        let lookup: @Sendable (SymbolLayout.Entry) throws -> SymbolFile?
        let pool: NIOThreadPool
        let connections: ConnectionTable
        let logger: Logger
    }

    private let group: MultiThreadedEventLoopGroup
    private let pool: NIOThreadPool
    private let channel: any Channel
    /// Where it listens (with the port chosen when 0 was asked).
    public let address: ListenAddress

    /// Binds and starts serving. `roots` gives the trees files may be served from, at each lookup
    /// (the catalogue's indexed roots for `serve-symbols`, the daemon's for `serve`).
    public init(catalogue: Catalogue, roots: @escaping @Sendable () throws -> [FilePath], listen: ListenAddress, settings: Settings = Settings(),
                logger: Logger) throws {
        Self.raiseDescriptorLimit(toFit: settings.maxConnections)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: settings.loopThreads)
        let pool = NIOThreadPool(numberOfThreads: settings.lookupThreads)
        pool.start()
        let shared = Shared(settings: settings, lookup: { entry in try catalogue.symbolFile(entry, roots: roots(), refused: { Self.log($0, logger) }) }, pool: pool,
                            connections: ConnectionTable(limit: settings.maxConnections), logger: logger)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                guard shared.connections.admit(channel) else {
                    logger.debug("refused a connection: \(settings.maxConnections) busy")
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withEncoderConfiguration: HTTPResponseEncoder.Configuration(), withDecoderLimitConfiguration: settings.decoderLimits)
                    try channel.pipeline.syncOperations.addHandler(SymbolHTTPHandler(shared: shared))
                }
            }
        do {
            channel = try bootstrap.bind(host: listen.host, port: listen.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            try? pool.syncShutdownGracefully()
            throw SymbolServerError("cannot listen on \(listen): \(error)")
        }
        self.group = group
        self.pool = pool
        address = ListenAddress(host: listen.host, port: channel.localAddress?.port ?? listen.port)
    }

    /// A catalogued file not served (a 404): one line, a warning when the file changed since it
    /// was indexed.
    static func log(_ refusal: SymbolFileRefusal, _ logger: Logger) {
        switch refusal.kind {
        case .changed, .unreadable: logger.warning("\(refusal)")
        case .notRecorded: logger.debug("\(refusal)")
        }
    }

    /// Each connection is a descriptor: the soft limit (1,024 by default) is raised towards the
    /// hard one (systemd's is 524,288) so that the connection bound, not EMFILE, is what holds.
    static func raiseDescriptorLimit(toFit connections: Int) {
        DescriptorLimit.raise(toAtLeast: connections + 1_024)
    }

    /// Stops listening; `wait` then closes the connections and returns.
    public func stop() {
        channel.close(promise: nil)
    }

    /// Blocks until `stop`, then releases the threads.
    public func wait() {
        try? channel.closeFuture.wait()
        try? group.syncShutdownGracefully()
        try? pool.syncShutdownGracefully()
    }
}

extension SymbolServer.Settings {
    var decoderLimits: NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = maxHeaderLine
        limits.maxHeaderListSize = maxHead
        limits.maxHeaderFieldCount = maxHeaderFields
        return limits
    }
}

public struct SymbolServerError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
