#if canImport(Glibc)
import Glibc
#endif

let EINVAL_ = EINVAL

/// A failed system call: which call, on what, and the errno it returned.
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
    public var errno: Int32
    public var operation: String
    public var path: String?

    public init(errno: Int32, operation: String, path: String? = nil) {
        self.errno = errno
        self.operation = operation
        self.path = path
    }

    /// The current `errno` of this thread, for the call that just failed.
    public static func last(_ operation: String, path: String? = nil) -> SystemError {
        SystemError(errno: Glibc.errno, operation: operation, path: path)
    }

    public var message: String { String(cString: strerror(errno)) }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return "\(operation): \(message)"
    }
}

/// Retries a call that failed with EINTR; returns its result or throws the error it set.
@inline(__always)
func retrying<T: BinaryInteger>(_ operation: String, path: String? = nil, _ call: () -> T) throws -> T {
    while true {
        let result = call()
        if result >= 0 { return result }
        let error = Glibc.errno
        if error != EINTR { throw SystemError(errno: error, operation: operation, path: path) }
    }
}

public let EXDEV_ = EXDEV
