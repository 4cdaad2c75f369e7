import BundleModel
import Catalogue
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One connection: reads a request's head, looks its route up off the event loop, and answers
/// with the file (sendfile through a `FileRegion`), a part of it, or an error.
///
/// One request at a time, and the next only once this answer's bytes have left for the socket:
/// NIO's pipelining handler lets the next request through when a response's end is written, so
/// the end is written only after the head and body writes have completed. Until then the
/// pipelining handler does not read the socket, and pipelined requests wait in the kernel's
/// buffers: one answer, one descriptor, one buffer per connection, whatever is queued.
final class SymbolHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let shared: SymbolServer.Shared
    private var request: HTTPRequestHead?
    /// The request being read was answered at its head (it announced a body); its body and end
    /// are dropped, and the connection closes once the answer is out.
    private var answeredAtHead = false
    /// Closes a connection that takes too long to send a request's head: slow headers, or
    /// keep-alive idleness.
    private var deadline: Scheduled<Void>?
    /// Looks at an answer being sent: its client's progress, its file.
    private var watch: Scheduled<Void>?
    private var answering = false
    /// Counts answers: writing an answer's end can start the next one before its caller has
    /// returned, and the watch must be the current answer's.
    private var answerNumber = 0

    init(shared: SymbolServer.Shared) {
        self.shared = shared
    }

    func handlerAdded(context: ChannelHandlerContext) {
        armDeadline(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        watch?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        watch?.cancel()
        shared.connections.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head):
            deadline?.cancel()
            deadline = nil
            shared.connections.set(context.channel, .working)
            answeredAtHead = false
            // A body is never read: refused at once, rather than waited for (a client could
            // announce a gigabyte and send nothing).
            if Self.announcesBody(head) {
                answeredAtHead = true
                let started = NIODeadline.now()
                var headers = HTTPHeaders()
                if head.method == .GET || head.method == .HEAD {
                    finish(.payloadTooLarge, headers: &headers, head: head, keepAlive: false, started: started, context: context)
                } else {
                    headers.add(name: "Allow", value: "GET, HEAD")
                    finish(.methodNotAllowed, headers: &headers, head: head, keepAlive: false, started: started, context: context)
                }
                return
            }
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            answer(head, context: context)
        }
    }

    /// A request that the decoder could not read: 400 and closed, as its `Connection: close`
    /// says (NIO's own error handler answers but leaves the connection open). Any other error
    /// (a reset) ends the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, !answering else {
            context.close(promise: nil)
            return
        }
        deadline?.cancel()
        deadline = nil
        request = nil
        shared.connections.set(context.channel, .working)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "-")
        var headers = HTTPHeaders()
        finish(.badRequest, headers: &headers, head: head, keepAlive: false, started: .now(), context: context)
    }

    static func announcesBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "Transfer-Encoding") || head.headers["Content-Length"].contains { Int64($0) != 0 }
    }

    private func armDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        let (timeout, logger) = (shared.settings.headerTimeout, shared.logger)
        deadline = context.eventLoop.scheduleTask(in: timeout.timeAmount) {
            let peer = channel.remoteAddress.map { "\($0.ipAddress ?? "?") \($0.port ?? 0)" } ?? "?"
            logger.debug("\(peer): no request head within \(timeout); closed")
            channel.close(promise: nil)
        }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let started = NIODeadline.now()
        let keepAlive = head.isKeepAlive
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
        let route = SymbolRoute(target: head.uri)
        if route == .unknown, let pages = shared.pages {
            page(pages, head: head, keepAlive: keepAlive, started: started, context: context)
            return
        }
        guard case let .file(entry) = route else {
            var headers = HTTPHeaders()
            let status: HTTPResponseStatus = route == .malformed ? .badRequest : .notFound
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
                if isOutOfDescriptors(error) {
                    unavailable(head: head, started: started, context: context, because: "\(error)")
                } else {
                    shared.log.warning("lookup", "\(head.method) \(head.uri): \(error)")
                    unavailable(head: head, started: started, context: context, because: nil)
                }
            }
        }
    }

    /// A web page (`PageSeam.swift`), made on the lookup threads as a catalogue lookup is.
    private func page(_ pages: @escaping SymbolServer.Pages, head: HTTPRequestHead, keepAlive: Bool, started: NIODeadline, context: ChannelHandlerContext) {
        let request = PageRequest(method: head.method == .HEAD ? "HEAD" : "GET", target: head.uri, headers: head.headers.map { ($0.name, $0.value) })
        shared.pool.runIfActive(eventLoop: context.eventLoop) { pages(request) }.assumeIsolated().whenComplete { [self] result in
            guard case let .success(answer?) = result else {
                var headers = HTTPHeaders()
                finish(.notFound, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
                return
            }
            var headers = HTTPHeaders(answer.headers)
            var buffer = context.channel.allocator.buffer(capacity: answer.body.count)
            buffer.writeBytes(answer.body)
            // A 304's Content-Length would have to be the 200's length (RFC 9110 8.6), which the page does not know here.
            if answer.status != 304 { headers.replaceOrAdd(name: "Content-Length", value: String(answer.body.count)) }
            send(HTTPResponseStatus(statusCode: answer.status), headers: &headers, body: head.method == .HEAD ? nil : .byteBuffer(buffer), head: head,
                 keepAlive: keepAlive, bytes: Int64(answer.body.count), started: started, file: nil, context: context)
        }
    }

    /// 503 with `Retry-After`, closed (which gives a descriptor back): never a 404, which
    /// debuginfod clients would cache.
    private func unavailable(head: HTTPRequestHead, started: NIODeadline, context: ChannelHandlerContext, because descriptors: String?) {
        if let descriptors {
            shared.log.warning("descriptors", "out of file descriptors, answering 503: \(descriptors)")
        }
        var headers = HTTPHeaders([("Retry-After", String(shared.settings.retryAfterSeconds)), ("Cache-Control", "no-store")])
        finish(.serviceUnavailable, headers: &headers, head: head, keepAlive: false, started: started, context: context)
    }

    private func serve(_ file: SymbolFile, head: HTTPRequestHead, keepAlive: Bool, started: NIODeadline, context: ChannelHandlerContext) {
        let size = file.status.size
        var headers = HTTPHeaders([("Accept-Ranges", "bytes"), ("Content-Type", "application/octet-stream")])
        DebuginfodHeaders.add(to: &headers, file: file)
        if let maximum = DebuginfodHeaders.maximumSize(head.headers), size > maximum {
            // As elfutils' debuginfod: the client said it does not want a file this large.
            finish(.notAcceptable, headers: &headers, head: head, keepAlive: keepAlive, started: started, context: context)
            return
        }
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
                let error = SystemError.last("dup")
                if isOutOfDescriptors(error) {
                    unavailable(head: head, started: started, context: context, because: "\(error)")
                } else {
                    finish(.internalServerError, headers: &headers, head: head, keepAlive: false, started: started, context: context)
                }
                return
            }
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
            region = FileRegion(fileHandle: handle, readerIndex: Int(span.lowerBound), endIndex: Int(span.upperBound) + 1)
        }
        headers.add(name: "Content-Length", value: String(length))
        let sending = region.map { SentFile(file: file, end: Int64($0.endIndex)) }
        send(status, headers: &headers, body: region.map { .fileRegion($0) }, head: head, keepAlive: keepAlive, bytes: length, started: started,
             file: sending, context: context, afterwards: { try? region?.fileHandle.close() })
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
             bytes: Int64(buffer.readableBytes), started: started, file: nil, context: context)
    }

    /// Writes an answer's head and body, watches it leave (`watchAnswer`), and only then writes
    /// its end, which lets the next pipelined request through; `afterwards` runs once it is sent
    /// or has failed. An answer that says `Connection: close` is followed by the close.
    private func send(_ status: HTTPResponseStatus, headers: inout HTTPHeaders, body: IOData?, head: HTTPRequestHead, keepAlive: Bool, bytes: Int64,
                      started: NIODeadline, file: SentFile?, context: ChannelHandlerContext, afterwards: @escaping () -> Void = {}) {
        let keepAlive = keepAlive && !answeredAtHead
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        headers.replaceOrAdd(name: "Date", value: HTTPDate.format(secondsSinceEpoch: Int64(time(nil))))
        let channel = context.channel
        answering = true
        answerNumber += 1
        let number = answerNumber
        shared.connections.set(channel, .sending)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: body == nil ? written : nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: written) }
        context.flush()
        written.futureResult.assumeIsolated().whenComplete { [self] result in
            answering = false
            watch?.cancel()
            watch = nil
            afterwards()
            let micros = (NIODeadline.now() - started).nanoseconds / 1_000
            let peer = channel.remoteAddress.map { "\($0.ipAddress ?? "?") \($0.port ?? 0)" } ?? "?"
            let sent = head.method == .HEAD ? 0 : bytes
            guard case .success = result, channel.isActive else {
                shared.logger.debug("\(peer) \(head.method) \(head.uri) \(status.code) cut off after \(micros / 1_000) ms")
                channel.close(promise: nil)
                return
            }
            shared.logger.debug("\(peer) \(head.method) \(head.uri) \(status.code) \(sent) bytes \(micros / 1_000).\(micros % 1_000 / 100) ms")
            // Idle before the end is written: writing it may hand this handler the next
            // pipelined request at once, which must find the connection idle, not make it so.
            if keepAlive {
                shared.connections.set(channel, .idle)
                armDeadline(context: context)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
                guard case .success = result, keepAlive, channel.isActive else {
                    channel.close(promise: nil)
                    return
                }
            }
        }
        // Most answers are in the socket by now (the completion above has run); the rest are
        // watched from what the client has acknowledged so far.
        guard answering, answerNumber == number else { return }
        TCPAcknowledged.read(channel) { [self] acknowledged in
            guard let acknowledged, answering, channel.isActive else { return }
            let progress = SendProgress(writeTimeout: shared.settings.writeTimeout.timeAmount, minimumRate: shared.settings.minimumSendRate,
                                        acknowledged: acknowledged, now: .now())
            watchAnswer(progress, file: file, head: head, context: context)
        }
    }

    /// Every `watchInterval` while an answer is out: lets go of a client that has stopped taking
    /// it or takes it below the floor, and ends an answer whose file shrank or changed (NIO's
    /// sendfile would otherwise retry at the end of a shorter file, spinning a core).
    private func watchAnswer(_ progress: SendProgress, file: SentFile?, head: HTTPRequestHead, context: ChannelHandlerContext) {
        let channel = context.channel
        watch = context.eventLoop.assumeIsolated().scheduleTask(in: shared.settings.watchEvery.timeAmount) { [self] in
            guard answering, channel.isActive else { return }
            if let file, let change = file.change() {
                shared.logger.info("\(head.uri): \(file.file.path) \(change) while it was sent; the connection is closed")
                channel.abort()
                return
            }
            TCPAcknowledged.read(channel) { [self] acknowledged in
                guard let acknowledged else { return }
                var progress = progress
                switch progress.observe(acknowledged: acknowledged, now: .now()) {
                case .waiting:
                    break
                case .progressed:
                    shared.connections.progressed(channel)
                case .stalled:
                    shared.logger.debug("\(head.uri): the client accepted nothing for \(shared.settings.writeTimeout); closed")
                    channel.abort()
                    return
                case let .tooSlow(bytes):
                    shared.logger.debug("\(head.uri): the client accepted \(bytes) bytes in \(shared.settings.writeTimeout), below the floor; closed")
                    channel.abort()
                    return
                }
                watchAnswer(progress, file: file, head: head, context: context)
            }
        }
    }
}

/// The file of an answer being sent, and how far the answer reads it.
struct SentFile {
    let file: SymbolFile
    let end: Int64

    /// What happened to the file since it was opened, if anything did: shorter than the answer
    /// needs, or written (its modification time moved).
    func change() -> String? {
        guard let now = try? file.descriptor.status() else { return "could not be read" }
        if now.size < end { return "shrank to \(now.size) bytes" }
        if now.modificationTime != file.status.modificationTime || now.size != file.status.size { return "changed" }
        return nil
    }
}

extension Duration {
    var timeAmount: TimeAmount { .nanoseconds(Int64(self / .nanoseconds(1))) }
}
