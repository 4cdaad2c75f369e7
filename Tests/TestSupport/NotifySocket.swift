import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The receiving end of systemd's notify protocol: a datagram socket bound at a path, as the
/// service manager binds one, for tests to read what a service reports.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    let descriptor: Int32
    /// Every field received so far, in order (`READY=1`, `STATUS=...`).
    public private(set) var fields: [String] = []

    public init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.last("socket") }
        guard bindUnixSocket(descriptor, to: path) else { throw SystemError.last("bind", path: path) }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Reads datagrams until a field satisfies `match` or the deadline passes; returns that field.
    @discardableResult
    public func waitFor(timeout: Double, _ what: String, _ match: (String) -> Bool) throws -> String {
        if let field = fields.first(where: match) { return field }
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 50) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let received = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
            fields += received
            if let field = received.first(where: match) { return field }
        }
        throw WatcherFailure("timed out after \(timeout) s waiting for \(what); received: \(fields)")
    }
}
