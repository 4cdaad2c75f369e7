import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The bytes a connection's peer has acknowledged (`tcpi_bytes_acked` of Linux's `struct
/// tcp_info`, since 4.1; openat2 already asks for 5.6): the one count of what a client has taken
/// that sees through the kernel's buffers and NIO's. Glibc's `tcp_info` stops before the field,
/// so the kernel's layout is read: 16 words, the field the last.
enum TCPAcknowledged {
    private struct Prefix: Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    }

    /// Calls `body` with the count, or nil when the socket cannot tell (not a socket NIO owns,
    /// an error); on the channel's event loop, at once.
    static func read(_ channel: any Channel, _ body: @escaping (UInt64?) -> Void) {
        guard let provider = channel as? any SocketOptionProvider else { return body(nil) }
        let future: EventLoopFuture<Prefix> = provider.unsafeGetSocketOption(level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_INFO))
        future.assumeIsolated().whenComplete { result in
            guard case let .success(prefix) = result else { return body(nil) }
            body(prefix.words.15)
        }
    }
}
