#if canImport(Glibc)
import Glibc
#endif
import Fixtures
import SystemCalls

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    /// Where temporary directories go by default: `$TMPDIR` (a tmpfs under `.ci/run-tests`), else /tmp.
    public static var defaultBase: String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }

    /// - Parameter base: where to make it; `defaultBase` if none.
    public init(_ label: String = "test", base: String? = nil) {
        let base = base ?? Self.defaultBase
        var template = Array("\(base)/bundlefs-\(label)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        path = String(cString: created!)
    }

    public func appending(_ relative: String) -> String { Paths.join(path, relative) }

    deinit { removeTree(path) }
}
