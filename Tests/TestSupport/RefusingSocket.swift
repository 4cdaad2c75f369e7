import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A stream socket bound where a server's socket was (PostgreSQL's `.s.PGSQL.5432` while it is
/// stopped): it counts each connection and closes it at once, so a test sees a client's retries
/// as a number instead of waiting out a stretch of time. Unbound when released.
public final class RefusingSocket {
    public let path: String
    let descriptor: Int32
    /// Connections taken and closed so far (`closePending` takes the waiting ones).
    public private(set) var connections = 0

    public init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.last("socket") }
        guard bindUnixSocket(descriptor, to: path), listen(descriptor, 64) == 0 else {
            let error = SystemError.last("bind", path: path)
            close(descriptor)
            throw error
        }
        // Whoever connects may run as another user (a server's clients do).
        chmod(path, 0o777)
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Accepts every waiting connection and closes it; returns the count so far.
    @discardableResult
    public func closePending() -> Int {
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { break }
            close(connection)
            connections += 1
        }
        return connections
    }
}
