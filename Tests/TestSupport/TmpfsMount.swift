import Foundation
import SystemCalls

/// A small tmpfs mounted for one test (a disk that fills up), unmounted when released, lazily if a
/// process still holds files in it.
public final class TmpfsMount: @unchecked Sendable {
    public let path: String

    public init(at path: String, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try Subprocess.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path])
        guard mounted.status == 0 else { throw WatcherFailure("mount tmpfs on \(path): \(mounted)") }
    }

    /// Writes a file of zeros until the file system is full; returns its path.
    @discardableResult
    public func fill(name: String = "filler") -> String {
        let filler = Paths.join(path, name)
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return filler }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 1 << 16)
        var size = block.count
        while size > 0 {
            let written = block.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, size) }
            if written < 0 { if size == 1 { break } else { size /= 2 } }
        }
        return filler
    }

    /// Bytes still free.
    public var available: Int64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    deinit {
        _ = try? Subprocess.run("/usr/bin/umount", ["-l", path])
    }
}
