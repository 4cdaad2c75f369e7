import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a loopback port by hand, for the requests no HTTP client sends: idle,
/// huge, slow. The symbol server's tests and its hostile-load benchmark hold it.
public final class RawConnection {
    public let fd: Int32

    /// `receiveTimeout`: a blocking read gives up after it (SO_RCVTIMEO); none by default.
    public init?(port: Int, receiveTimeout: Int? = nil) {
        // Kept local until connected: a failed init of a whole object runs deinit, which would
        // close the descriptor a second time, by then perhaps another thread's.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        if let receiveTimeout {
            var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        fd = descriptor
    }

    deinit { close(fd) }

    /// Sends all of `bytes`; false once the peer has gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Whether the peer has closed (or reset) the connection, looking without waiting.
    public var isClosedByPeer: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// What the peer sends until it closes or `timeout` seconds pass.
    public func receive(timeout: Double) -> [UInt8] {
        var result: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&pollfd, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1_000))) > 0 else { break }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            result += buffer[..<n]
        }
        return result
    }

    /// Sends what the kernel takes of `bytes` without waiting (a peer that stopped reading
    /// leaves the rest); the count sent.
    @discardableResult
    public func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            sent += n
        }
        return sent
    }

    /// Whether the peer has closed or reset the connection, even with bytes still unread here.
    public var isHungUp: Bool {
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(pollReadHangUp), revents: 0)
        guard Glibc.poll(&pollfd, 1, 0) > 0 else { return false }
        return pollfd.revents & Int16(pollReadHangUp | POLLHUP | POLLERR) != 0
    }

    /// Bytes received and not yet read.
    public var availableBytes: Int {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }

    /// Reads what has arrived, up to `limit` bytes, waiting at most `timeout` seconds for the
    /// first; nil once the peer has closed (or reset) and everything is read.
    public func read(upTo limit: Int, timeout: Double) -> [UInt8]? {
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&pollfd, 1, Int32(timeout * 1_000)) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: limit)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Array(buffer[..<n])
    }

    /// Reads and drops everything until the peer closes; false if it has not after `timeout` seconds.
    public func drainUntilClosed(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if read(upTo: 1 << 20, timeout: max(0.001, deadline.timeIntervalSinceNow)) == nil { return true }
        }
        return false
    }

    /// Raises this process's descriptor limit to `count` (within the hard limit).
    public static func allowDescriptors(_ count: Int) {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
        setrlimit(resource, &limit)
    }
}

/// Linux's POLLRDHUP (the peer closed its side), which Glibc's module leaves out without _GNU_SOURCE.
public let pollReadHangUp: Int32 = 0x2000
