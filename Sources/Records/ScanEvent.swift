public import BundleModel
public import SystemCalls

/// What the catalogue keeps about a directory: enough to tell on the next run, without listing
/// it, whether anything in it changed.
public struct DirectoryRow: Sendable, Equatable {
    public var path: FilePath
    /// ctime in nanoseconds, read before the directory was listed.
    public var changeTime: Int64
    public var inode: UInt64
    public var device: UInt64
    /// Lower-cased extension, for finding claimed document packages.
    public var lowercasedExtension: String?
    /// False when the ctime was too close to the scan to be trusted (it may hide a later change).
    public var trusted: Bool
    /// The stamp of an AppleDouble `._name` beside it: its contents can change the Finder flags
    /// without touching any directory's ctime.
    public var sidecar: FileStamp?

    public init(path: FilePath, changeTime: Int64, inode: UInt64, device: UInt64, lowercasedExtension: String?, trusted: Bool, sidecar: FileStamp?) {
        self.path = path
        self.changeTime = changeTime
        self.inode = inode
        self.device = device
        self.lowercasedExtension = lowercasedExtension
        self.trusted = trusted
        self.sidecar = sidecar
    }
}

/// An archive under a root whose members were looked into (rule 26): what the next run needs to
/// tell whether it changed, and why it could not be read whole.
public struct ArchiveRow: Sendable, Equatable {
    public var path: FilePath
    public var changeTime: Int64
    public var size: Int64
    public var inode: UInt64
    public var members: Int
    public var error: String?

    public init(path: FilePath, changeTime: Int64, size: Int64, inode: UInt64, members: Int, error: String?) {
        self.path = path
        self.changeTime = changeTime
        self.size = size
        self.inode = inode
        self.members = members
        self.error = error
    }

    /// Whether a file's status says it is still the archive read.
    public func matches(_ status: FileStatus) -> Bool {
        status.changeTime == changeTime && status.size == size && status.inode == inode
    }
}

/// A change a scan found, in an order that keeps the catalogue consistent: a bundle before its
/// directory's row, and a directory's row only after all its subdirectories' rows. The scanner
/// reports them; the catalogue applies them.
public enum ScanEvent: Sendable {
    /// A bundle or package that is new or changed.
    case bundle(BundleRecord)
    /// A catalogued bundle whose directory is no longer a bundle or package (it still exists).
    case bundleRemoved(path: FilePath)
    /// A directory that was listed (new or changed), after its whole subtree.
    case directory(DirectoryRow)
    /// An archive read (again): its bundles replace whatever was catalogued inside it.
    case archive(ArchiveRow, [BundleRecord])
    /// A directory's archives as listed now: catalogued archives of that directory not named here
    /// are gone, with their bundles.
    case archivesListed(directory: FilePath, names: [FileName])

    /// The bundle a bundle event is about.
    public var bundlePath: FilePath? {
        switch self {
        case let .bundle(record): record.key
        case let .bundleRemoved(path): path
        case .directory, .archive, .archivesListed: nil
        }
    }
}
