public import SystemCalls

/// A directory tree being read. Every file bundlefs reads for a bundle is opened relative to the
/// root with RESOLVE_BENEATH, so neither `..` nor a symlink can lead a read out of the tree.
public struct ScanRoot: Sendable {
    /// Absolute, normalised path.
    public let path: String
    let descriptor: Descriptor

    public init(path: String) throws {
        let absolute = Paths.absolute(path, base: "/")
        self.path = absolute
        descriptor = try Descriptor.open(absolute, flags: O_PATH_DIRECTORY)
    }

    /// The filesystem root: reads may go anywhere (used by `show`, which has no tree).
    public static func fileSystemRoot() throws -> ScanRoot { try ScanRoot(path: "/") }

    /// `path` relative to the root, or nil when outside it.
    public func relative(_ path: String) -> String? { Paths.relative(path, to: self.path) }

    func absolute(_ relative: String) -> String { Paths.join(path, relative) }

    /// Opens a path relative to the root, never leaving it.
    func open(_ relative: String, flags: Int32) throws -> Descriptor {
        try descriptor.openBeneath(relative.isEmpty ? "." : relative, flags: flags)
    }

    /// Status of a path relative to the root, following symlinks that stay inside; nil when it
    /// does not exist or cannot be reached.
    public func status(_ relative: String) -> FileStatus? {
        guard let handle = try? open(relative, flags: O_PATH_ONLY) else { return nil }
        return try? handle.status()
    }

    /// Reads a whole regular file relative to the root. Its type and size are checked through an
    /// O_PATH handle first, so a FIFO or a device is never opened and an oversized file never read.
    public func readRegularFile(_ relative: String, limit: Int) throws -> (bytes: [UInt8], status: FileStatus) {
        let display = absolute(relative)
        let before = try open(relative, flags: O_PATH_ONLY).status()
        guard before.type == .regular else { throw BoundedReadError.notRegularFile(path: display, type: before.type) }
        guard before.size <= Int64(limit) else { throw BoundedReadError.tooLarge(path: display, size: before.size, limit: limit) }
        let file = try open(relative, flags: Descriptor.probeRead)
        let status = try file.status()
        guard status.inode == before.inode, status.type == .regular else {
            throw BoundedReadError.notRegularFile(path: display, type: status.type)
        }
        return (try file.readRegularFile(limit: limit), status)
    }

    /// The first `count` bytes of a regular file relative to the root (never opening anything else).
    func readPrefix(_ relative: String, count: Int) throws -> [UInt8] {
        let before = try open(relative, flags: O_PATH_ONLY).status()
        guard before.type == .regular else { throw BoundedReadError.notRegularFile(path: absolute(relative), type: before.type) }
        let file = try open(relative, flags: Descriptor.probeRead)
        guard try file.status().type == .regular else { throw BoundedReadError.notRegularFile(path: absolute(relative), type: before.type) }
        return try file.read(at: 0, count: count)
    }

    /// The entries of a directory relative to the root; nil when it cannot be listed.
    func list(_ relative: String) -> (entries: [DirectoryEntry], status: FileStatus)? {
        guard let directory = try? open(relative, flags: Descriptor.directoryNoFollowFinal),
              let status = try? directory.status(),
              let entries = try? directory.listDirectory()
        else { return nil }
        return (entries, status)
    }
}
