import BundleModel
import Catalogue
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// One connection: reads a request's head, looks its route up off the event loop, and answers
/// with the file (sendfile through a `FileRegion`), a part of it, or an error. Requests on a
/// connection are answered one at a time (NIO's pipelining handler holds the next one back).
final class SymbolHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let shared: SymbolServer.Shared
    private var request: HTTPRequestHead?
    private var hasBody = false
    /// Closes a connection that takes too long to send a request's head: slow headers, or
    /// keep-alive idleness.
    private var deadline: Scheduled<Void>?

    init(shared: SymbolServer.Shared) {
        self.shared = shared
    }

    func handlerAdded(context: ChannelHandlerContext) {
        armDeadline(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        shared.connections.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            deadline?.cancel()
            deadline = nil
            shared.connections.setBusy(context.channel, true)
            request = head
            hasBody = false
        case .body:
            // Nothing here takes a body; read and dropped, and the connection closed after the answer.
            hasBody = true
        case .end:
            guard let head = request else { return }
            request = nil
            answer(head, context: context)
        }
    }

    private func armDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(shared.settings.headerTimeout / .nanoseconds(1)))) { channel.close(promise: nil) }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let started = NIODeadline.now()
        let keepAlive = head.isKeepAlive && !hasBody
        guard head.method == .GET || head.method == .HEAD else {
            var headers = HTTPHeaders([("Allow", "GET, HEAD")])
            finish(.methodNotAllowed, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            return
        }
        guard head.uri.utf8.count <= shared.settings.maxTargetLength else {
            var headers = HTTPHeaders()
            finish(.uriTooLong, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            return
        }
        guard case let .file(entry) = SymbolRoute(target: head.uri) else {
            var headers = HTTPHeaders()
            let status: HTTPResponseStatus = SymbolRoute(target: head.uri) == .malformed ? .badRequest : .notFound
            finish(status, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            return
        }
        let lookup = shared.lookup
        shared.pool.runIfActive(eventLoop: context.eventLoop) { try lookup(entry) }.assumeIsolated().whenComplete { [self] result in
            switch result {
            case let .success(file?):
                serve(file, head: head, keepAlive: keepAlive, started: started, context: context)
            case .success(nil):
                var headers = HTTPHeaders()
                finish(.notFound, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            case let .failure(error):
                shared.logger.warning("\(head.method) \(head.uri): \(error)")
                var headers = HTTPHeaders()
                finish(.serviceUnavailable, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            }
        }
    }

    private func serve(_ file: SymbolFile, head: HTTPRequestHead, keepAlive: Bool, started: NIODeadline, context: ChannelHandlerContext) {
        let size = file.status.size
        var headers = HTTPHeaders([("Accept-Ranges", "bytes"), ("Content-Type", "application/octet-stream")])
        // debuginfod's own headers, which its clients show and may check the transfer against.
        headers.add(name: "X-Debuginfod-Size", value: String(size))
        // If-Range would need a validator to compare; answering whole is always right.
        let range = head.headers.contains(name: "If-Range") ? ByteRange.whole : ByteRange(header: head.headers.first(name: "Range"), size: size)
        let span: ClosedRange<Int64>?
        let status: HTTPResponseStatus
        switch range {
        case .whole:
            status = .ok
            span = size > 0 ? 0...(size - 1) : nil
        case let .part(part):
            status = .partialContent
            span = part
            headers.add(name: "Content-Range", value: "bytes \(part.lowerBound)-\(part.upperBound)/\(size)")
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(size)")
            finish(.rangeNotSatisfiable, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            return
        }
        let length = span.map { $0.upperBound - $0.lowerBound + 1 } ?? 0
        var region: FileRegion?
        if head.method == .GET, let span {
            // NIO closes its handle once the answer is sent; ours stays with `file`.
            let copy = dup(file.descriptor.rawValue)
            guard copy >= 0 else {
                finish(.internalServerError, headers: &headers, head: head, keepAlive: false, started: started, context: context)
                return
            }
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
            region = FileRegion(fileHandle: handle, readerIndex: Int(span.lowerBound), endIndex: Int(span.upperBound) + 1)
        }
        headers.add(name: "Content-Length", value: String(length))
        send(status, headers: &headers, body: region.map { .fileRegion($0) }, head: head, keepAlive: keepAlive, bytes: length, started: started,
             context: context, afterwards: { try? region?.fileHandle.close() })
    }

    /// An answer without a file: its status as a short text body (none for HEAD).
    private func finish(_ status: HTTPResponseStatus, headers: inout HTTPHeaders, head: HTTPRequestHead, keepAlive: Bool, started: NIODeadline,
                        context: ChannelHandlerContext) {
        let text = "\(status.code) \(status.reasonPhrase)\n"
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.replaceOrAdd(name: "Content-Length", value: String(buffer.readableBytes))
        send(status, headers: &headers, body: head.method == .HEAD ? nil : .byteBuffer(buffer), head: head, keepAlive: keepAlive,
             bytes: Int64(buffer.readableBytes), started: started, context: context)
    }

    /// Writes an answer; `afterwards` runs once it is sent or has failed.
    private func send(_ status: HTTPResponseStatus, headers: inout HTTPHeaders, body: IOData?, head: HTTPRequestHead, keepAlive: Bool, bytes: Int64,
                      started: NIODeadline, context: ChannelHandlerContext, afterwards: @escaping () -> Void = {}) {
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] result in
            afterwards()
            let micros = (NIODeadline.now() - started).nanoseconds / 1_000
            let peer = channel.remoteAddress.map { "\($0.ipAddress ?? "?") \($0.port ?? 0)" } ?? "?"
            let sent = head.method == .HEAD ? 0 : bytes
            shared.logger.debug("\(peer) \(head.method) \(head.uri) \(status.code) \(sent) bytes \(micros / 1_000).\(micros % 1_000 / 100) ms")
            guard case .success = result, keepAlive, channel.isActive else {
                channel.close(promise: nil)
                return
            }
            shared.connections.setBusy(channel, false)
            armDeadline(context: context)
        }
    }
}
