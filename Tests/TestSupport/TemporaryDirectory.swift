#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "test") {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/bundlefs-\(label)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        path = String(cString: created!)
    }

    public func appending(_ relative: String) -> String { Paths.join(path, relative) }

    deinit { removeTreeForTests(path) }
}

func removeTreeForTests(_ path: String) {
    guard let status = try? FileStatus.of(path) else { return }
    if status.type == .directory {
        _ = try? FileNameCoding.withCString(path) { chmod($0, 0o755) }
        if let directory = try? Descriptor.open(path, flags: Descriptor.directoryNoFollow),
           let entries = try? directory.listDirectory() {
            for entry in entries { removeTreeForTests(Paths.join(path, entry.name)) }
        }
        _ = try? FileNameCoding.withCString(path) { rmdir($0) }
    } else {
        _ = try? FileNameCoding.withCString(path) { unlink($0) }
    }
}
