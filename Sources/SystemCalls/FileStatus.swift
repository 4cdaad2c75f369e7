#if canImport(Glibc)
import Glibc
#endif

/// What kind of object a directory entry or a stat names.
public enum FileType: UInt8, Sendable, CustomStringConvertible {
    case unknown, regular, directory, symlink, fifo, socket, characterDevice, blockDevice

    init(mode: UInt32) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symlink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .unknown
        }
    }

    init(direntType: UInt8) {
        switch Int32(direntType) {
        case Int32(DT_REG): self = .regular
        case Int32(DT_DIR): self = .directory
        case Int32(DT_LNK): self = .symlink
        case Int32(DT_FIFO): self = .fifo
        case Int32(DT_SOCK): self = .socket
        case Int32(DT_CHR): self = .characterDevice
        case Int32(DT_BLK): self = .blockDevice
        default: self = .unknown
        }
    }

    /// The S_IFMT bits of this type (0 for unknown).
    public var modeBits: UInt32 {
        switch self {
        case .unknown: 0
        case .regular: S_IFREG
        case .directory: S_IFDIR
        case .symlink: S_IFLNK
        case .fifo: S_IFIFO
        case .socket: S_IFSOCK
        case .characterDevice: S_IFCHR
        case .blockDevice: S_IFBLK
        }
    }

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .regular: "regular file"
        case .directory: "directory"
        case .symlink: "symbolic link"
        case .fifo: "FIFO"
        case .socket: "socket"
        case .characterDevice: "character device"
        case .blockDevice: "block device"
        }
    }
}

/// The fields of `struct stat` that bundlefs uses. Times are nanoseconds since the epoch.
public struct FileStatus: Sendable, Equatable, Hashable {
    public var type: FileType
    public var permissions: UInt32
    public var size: Int64
    public var inode: UInt64
    public var device: UInt64
    public var linkCount: UInt64
    public var userID: UInt32
    public var groupID: UInt32
    public var accessTime: Int64
    public var modificationTime: Int64
    public var changeTime: Int64
    public var blocks: Int64
    /// The device a character or block special file stands for.
    public var specialDevice: UInt64

    /// A status for something that is not a file on disk (an archive's member): the rest zero.
    public init(type: FileType, permissions: UInt32, size: Int64, inode: UInt64, modificationTime: Int64) {
        self.type = type
        self.permissions = permissions
        self.size = size
        self.inode = inode
        device = 0
        linkCount = 1
        userID = 0
        groupID = 0
        accessTime = modificationTime
        self.modificationTime = modificationTime
        changeTime = modificationTime
        blocks = 0
        specialDevice = 0
    }

    init(_ raw: stat) {
        type = FileType(mode: raw.st_mode)
        permissions = raw.st_mode & 0o7777
        size = Int64(raw.st_size)
        inode = UInt64(raw.st_ino)
        device = UInt64(raw.st_dev)
        linkCount = UInt64(raw.st_nlink)
        userID = raw.st_uid
        groupID = raw.st_gid
        accessTime = Self.nanoseconds(raw.st_atim)
        modificationTime = Self.nanoseconds(raw.st_mtim)
        changeTime = Self.nanoseconds(raw.st_ctim)
        blocks = Int64(raw.st_blocks)
        specialDevice = UInt64(raw.st_rdev)
    }

    static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// The file, whatever path reached it.
    public var identity: FileIdentity { FileIdentity(device: device, inode: inode) }

    /// `lstat` (or `stat` when `followSymlinks`) of an absolute or relative path.
    public static func of(_ path: FilePath, followSymlinks: Bool = false) throws -> FileStatus {
        var raw = stat()
        let result = try path.withCString { followSymlinks ? stat($0, &raw) : lstat($0, &raw) }
        if result != 0 { throw SystemError.last(followSymlinks ? "stat" : "lstat", path: path.string) }
        return FileStatus(raw)
    }
}

/// One file, whatever path reached it (or how many).
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
