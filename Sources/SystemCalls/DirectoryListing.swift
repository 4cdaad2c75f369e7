#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// One entry of a directory, as getdents64 reports it (no stat).
public struct DirectoryEntry: Sendable, Equatable {
    public var name: FileName
    /// From `d_type`; `.unknown` on file systems that do not fill it in.
    public var type: FileType
    public var inode: UInt64

    public init(name: FileName, type: FileType, inode: UInt64) {
        self.name = name
        self.type = type
        self.inode = inode
    }
}

extension Descriptor {
    /// Every entry of this freshly opened directory but `.` and `..`, in the order the file system
    /// returns them. Reads 32 KiB per call; no stat is made, so types may be `.unknown`. Call once
    /// per descriptor: the directory offset is not rewound.
    public func listDirectory() throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        let capacity = 32 * 1024
        // From malloc: `withUnsafeTemporaryAllocation` cannot put this much on a thread's stack and
        // took it from posix_memalign, which cost more than the listing of a small directory.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let filled = try retrying("getdents64", path: path.string) { bfs_getdents64(rawValue, buffer, capacity) }
            if filled == 0 { break }
            var offset = 0
            while offset < filled {
                let record = UnsafeRawPointer(buffer + offset)
                let name = bfs_dirent_name(record)!
                offset += Int(bfs_dirent_reclen(record))
                if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { continue }
                entries.append(DirectoryEntry(
                    name: FileName(FileNameCoding.string(cString: name)),
                    type: FileType(direntType: bfs_dirent_type(record)),
                    inode: bfs_dirent_ino(record)))
            }
        }
        return entries
    }

    /// The listing with every `.unknown` type filled in by `fstatat` (no symlink followed).
    public func listDirectoryTyped() throws -> [DirectoryEntry] {
        var entries = try listDirectory()
        for index in entries.indices where entries[index].type == .unknown {
            entries[index].type = (try? status(of: entries[index].name).type) ?? .unknown
        }
        return entries
    }
}
