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
/// request's head, one answer in flight per connection, the time and rate a client takes an
/// answer at (`SendProgress`). SwiftNIO underneath (Docs/dependencies.md says why).
public final class SymbolServer: Sendable {
    public struct Settings: Sendable {
        /// Connections held at once; at the bound the longest idle or stuck one makes room.
        public var maxConnections = 4_096
        /// Time to send a request's head, from the connection or the previous answer: slow
        /// headers and idle keep-alive connections are closed after it.
        public var headerTimeout = Duration.seconds(10)
        /// A client that accepts no bytes of an answer for this long is let go; also the window
        /// over which `minimumSendRate` is judged.
        public var writeTimeout = Duration.seconds(10)
        /// Bytes a second a client must accept, on average over each `writeTimeout`, while an
        /// answer is sent: below it a connection (and its descriptor) is let go. 4 KiB/s sends
        /// 100 MB in under 7 hours.
        public var minimumSendRate = 4_096
        /// A connection sending an answer its client has accepted nothing of for this long may
        /// make room for a new one at the bound, as an idle one does.
        public var stallGrace = Duration.seconds(1)
        /// How often an answer being sent is looked at (its client's progress, its file).
        public var watchInterval = Duration.milliseconds(250)
        /// What a 503 (out of descriptors, the catalogue unreadable) tells the client to wait.
        public var retryAfterSeconds = 5
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

        /// The defaults, but for the `BUNDLEFS_SYMBOLS_*` variables, which let the tests see a
        /// slow client cut off in a second rather than ten, and the bound reached with a few
        /// connections: `HEADER_TIMEOUT_MS`, `WRITE_TIMEOUT_MS`, `MIN_SEND_RATE` (bytes a second),
        /// `STALL_GRACE_MS`, `MAX_CONNECTIONS`.
        public static func fromEnvironment(_ environment: [String: String]) -> Settings {
            var settings = Settings()
            func number(_ name: String) -> Int? {
                environment["BUNDLEFS_SYMBOLS_" + name].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            }
            if let milliseconds = number("HEADER_TIMEOUT_MS") { settings.headerTimeout = .milliseconds(milliseconds) }
            if let milliseconds = number("WRITE_TIMEOUT_MS") { settings.writeTimeout = .milliseconds(milliseconds) }
            if let rate = number("MIN_SEND_RATE") { settings.minimumSendRate = rate }
            if let milliseconds = number("STALL_GRACE_MS") { settings.stallGrace = .milliseconds(milliseconds) }
            if let count = number("MAX_CONNECTIONS") { settings.maxConnections = count }
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
        /// Warnings a flood would repeat: one line a minute of each kind.
        let log: RateLimitedLog
        /// The web inventory's pages, for targets no symbol route claims.
        let pages: Pages?
    }

    private let group: MultiThreadedEventLoopGroup
    private let pool: NIOThreadPool
    private let channel: any Channel
    /// Where it listens (with the port chosen when 0 was asked).
    public let address: ListenAddress

    /// Binds and starts serving. `roots` gives the trees files may be served from, at each lookup
    /// (the catalogue's indexed roots for `serve-symbols`, the daemon's for `serve`).
    /// `pages`, when given, answers every other target (`PageSeam.swift`).
    public init(catalogue: any SymbolIndex, roots: @escaping @Sendable () throws -> [FilePath], listen: ListenAddress, settings: Settings = Settings(),
                logger: Logger, pages: Pages? = nil) throws {
        Self.raiseDescriptorLimit(toFit: settings.maxConnections)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: settings.loopThreads)
        let pool = NIOThreadPool(numberOfThreads: settings.lookupThreads)
        pool.start()
        let log = RateLimitedLog(logger: logger)
        let shared = Shared(settings: settings, lookup: { entry in try catalogue.symbolFile(entry, roots: roots(), refused: { Self.log($0, log, logger) }) },
                            pool: pool, connections: ConnectionTable(limit: settings.maxConnections, stallGrace: settings.stallGrace.timeAmount),
                            logger: logger, log: log, pages: pages)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptErrorLog(log: log)) }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                guard shared.connections.admit(channel) else {
                    logger.debug("refused a connection: \(settings.maxConnections) busy")
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    // Without NIO's error handler: its 400 leaves the connection open; ours closes it.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withErrorHandling: false, withEncoderConfiguration: HTTPResponseEncoder.Configuration(),
                        withDecoderLimitConfiguration: settings.decoderLimits)
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
    /// A file refused: a warning once a minute per file, however often clients ask for it.
    static func log(_ refusal: SymbolFileRefusal, _ log: RateLimitedLog, _ logger: Logger) {
        switch refusal.kind {
        case .changed, .unreadable: log.warning("not served: \(refusal.file)", "\(refusal)")
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
    /// `watchInterval`, but often enough that a short write timeout is not overshot by more than
    /// a quarter.
    var watchEvery: Duration { min(watchInterval, writeTimeout / 4) }

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
