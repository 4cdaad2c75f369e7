import NIOCore

/// On the listening socket: running out of descriptors while accepting is said once a minute
/// (NIO's accept backoff then waits a second before accepting again; the client waits in the
/// backlog meanwhile, and no answer can be sent on a connection that has no descriptor).
final class AcceptErrorLog: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel

    let log: RateLimitedLog

    init(log: RateLimitedLog) {
        self.log = log
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if isOutOfDescriptors(error) {
            log.warning("descriptors", "out of file descriptors, new connections wait in the backlog: \(error)")
        }
        context.fireErrorCaught(error)
    }
}
