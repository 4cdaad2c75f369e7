#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// An open file descriptor, closed when the last reference goes away.
public final class Descriptor: Sendable {
    public let rawValue: Int32
    /// The path it was opened by, for error messages.
    public let path: FilePath

    public init(adopting rawValue: Int32, path: FilePath) {
        self.rawValue = rawValue
        self.path = path
    }

    deinit { close(rawValue) }

    public static let readOnly = O_RDONLY | O_CLOEXEC | O_NOCTTY
    /// Flags for listing a directory that must not be a symlink.
    public static let directoryNoFollow = O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW
    /// Flags for listing a directory reached through symlinks that are allowed (e.g. beneath a root).
    public static let directoryNoFollowFinal = O_RDONLY | O_CLOEXEC | O_DIRECTORY
    /// Flags for reading a file that might be a FIFO: O_NONBLOCK keeps `open` from waiting for a writer.
    public static let probeRead = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK

    /// Opens a path; `mode` applies when `flags` create the file.
    public static func open(_ path: FilePath, flags: Int32, mode: UInt32 = 0o644) throws -> Descriptor {
        let fd = try path.withCString { cPath in
            try retrying("open", path: path.string) { Glibc.open(cPath, flags, mode) }
        }
        return Descriptor(adopting: fd, path: path)
    }

    /// Opens `name` relative to this directory.
    public func open(_ name: FileName, flags: Int32) throws -> Descriptor {
        let fullPath = path.appending(name)
        let fd = try FileNameCoding.withCString(name.string) { cName in
            try retrying("openat", path: fullPath.string) { openat(rawValue, cName, flags) }
        }
        return Descriptor(adopting: fd, path: fullPath)
    }

    /// Opens a relative path that may not leave this directory, neither through `..` nor through
    /// symlinks (openat2 with RESOLVE_BENEATH). A path that would escape fails with EXDEV.
    public func openBeneath(_ relativePath: FilePath, flags: Int32) throws -> Descriptor {
        let fullPath = path.appending(relativePath)
        let fd = try (relativePath.isEmpty ? "." : relativePath).withCString { cPath in
            try retrying("openat2", path: fullPath.string) { bfs_openat_beneath(rawValue, cPath, flags) }
        }
        return Descriptor(adopting: fd, path: fullPath)
    }

    /// Opens a relative path beneath this directory through no symlink at all, not even a final
    /// one (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS): ELOOP when a component is one.
    public func openBeneathWithoutLinks(_ relativePath: FilePath, flags: Int32) throws -> Descriptor {
        let fullPath = path.appending(relativePath)
        let fd = try (relativePath.isEmpty ? "." : relativePath).withCString { cPath in
            try retrying("openat2", path: fullPath.string) { bfs_openat_beneath_no_symlinks(rawValue, cPath, flags) }
        }
        return Descriptor(adopting: fd, path: fullPath)
    }

    /// The path the kernel reached this file by, every symlink resolved (from /proc/self/fd);
    /// nil when it cannot say or the file was deleted since.
    public var openedPath: FilePath? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBufferPointer { out in
            out.baseAddress!.withMemoryRebound(to: CChar.self, capacity: out.count) { readlink("/proc/self/fd/\(rawValue)", $0, out.count) }
        }
        guard length > 0, length < buffer.count, buffer[0] == UInt8(ascii: "/") else { return nil }
        let path = FilePath(bytes: buffer[0..<length])
        // A file deleted since it was opened is named with this suffix: no path leads to it any more.
        if path.string.hasSuffix(" (deleted)"), (try? status())?.linkCount == 0 { return nil }
        return path
    }

    public func status() throws -> FileStatus {
        var raw = stat()
        if fstat(rawValue, &raw) != 0 { throw SystemError.last("fstat", path: path.string) }
        return FileStatus(raw)
    }

    /// Status of an entry of this directory; symlinks are not followed unless asked.
    public func status(of name: FileName, followSymlinks: Bool = false) throws -> FileStatus {
        var raw = stat()
        let flags = followSymlinks ? 0 : AT_SYMLINK_NOFOLLOW
        let result = try FileNameCoding.withCString(name.string) { fstatat(rawValue, $0, &raw, flags) }
        if result != 0 { throw SystemError.last("fstatat", path: path.appending(name).string) }
        return FileStatus(raw)
    }

    /// The target of a symlink in this directory, as written (not resolved).
    public func readLink(_ name: FileName) throws -> FilePath {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = try FileNameCoding.withCString(name.string) { cName in
            buffer.withUnsafeMutableBufferPointer { out in
                out.baseAddress!.withMemoryRebound(to: CChar.self, capacity: out.count) {
                    readlinkat(rawValue, cName, $0, out.count)
                }
            }
        }
        if length < 0 { throw SystemError.last("readlink", path: path.appending(name).string) }
        return FilePath(bytes: buffer[0..<length])
    }

    /// Reads up to `count` bytes at `offset` (fewer only at end of file).
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = try result.withUnsafeMutableBytes { buffer in
                try retrying("read", path: path.string) {
                    pread(rawValue, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                }
            }
            done += n
            // For regular files a short read is the end of the file; no need to ask again.
            if n == 0 || n < count - (done - n) { break }
        }
        result.removeLast(count - done)
        return result
    }
}

/// `O_PATH | O_DIRECTORY | O_CLOEXEC`: a handle to a directory used only as a base for `*at` calls.
public let O_PATH_DIRECTORY = bfs_o_path | O_DIRECTORY | O_CLOEXEC
/// `O_PATH | O_CLOEXEC`: a handle used only to stat what a path leads to.
public let O_PATH_ONLY = bfs_o_path | O_CLOEXEC
/// `O_NOFOLLOW` when `condition` holds, else 0: for an entry already known not to be a symlink,
/// so that a swap for a symlink between the listing and the open is refused.
public func O_NOFOLLOW_IF(_ condition: Bool) -> Int32 { condition ? O_NOFOLLOW : 0 }

/// An exclusive advisory lock (an open-file-description lock, so that others can look for it
/// without taking it) held while the object lives: one watcher per catalogue, one process creating
/// or migrating it. The lock file also carries what its holder publishes (the watcher's status),
/// rewritten in place so that it can be published when the disk is full.
public final class FileLock: Sendable {
    let descriptor: Descriptor
    /// Bytes reserved at the start of the file, so that rewriting them needs no new space.
    static let reserved = 4096

    /// Takes the lock on `path` (created if missing, for its owner only); nil when another process
    /// holds it.
    public init?(path: FilePath) throws {
        descriptor = try Descriptor.open(path, flags: O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
        if bfs_ofd_lock(descriptor.rawValue) != 0 {
            if errno == EAGAIN || errno == EACCES { return nil }
            throw SystemError.last("fcntl(F_OFD_SETLK)", path: path.string)
        }
        _ = posix_fallocate(descriptor.rawValue, 0, off_t(Self.reserved))
    }

    /// Replaces what the file carries: `bytes`, padded with spaces to the reserved size (readers
    /// trim them). A reader may see a write half done; it reads again.
    public func publish(_ bytes: [UInt8]) throws {
        var padded = bytes
        if padded.count < Self.reserved { padded += [UInt8](repeating: 0x20, count: Self.reserved - padded.count) }
        let written = padded.withUnsafeBytes { pwrite(descriptor.rawValue, $0.baseAddress, $0.count, 0) }
        if written != padded.count { throw SystemError.last("pwrite", path: nil) }
        if padded.count > Self.reserved { _ = ftruncate(descriptor.rawValue, off_t(padded.count)) }
    }

    /// Whether some process holds the lock at `path` now (false when there is no such file or it
    /// cannot be opened).
    public static func isHeld(at path: FilePath) -> Bool {
        guard let file = try? Descriptor.open(path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) else { return false }
        return bfs_ofd_lock_held(file.rawValue) == 1
    }

    /// What the holder of the lock at `path` last published; nil when there is no such file or it
    /// cannot be read. (It does not try the lock: a reader holding it even briefly would turn a
    /// starting watcher away.)
    public static func published(at path: FilePath) -> [UInt8]? {
        guard let file = try? Descriptor.open(path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK),
              let status = try? file.status(), status.type == .regular,
              let bytes = try? file.read(at: 0, count: max(Self.reserved, Int(status.size)))
        else { return nil }
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0 || bytes[end - 1] == 0x0A { end -= 1 }
        return Array(bytes[..<end])
    }
}
