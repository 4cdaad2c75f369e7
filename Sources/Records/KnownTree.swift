public import BundleModel
public import SystemCalls

/// What the catalogue knew about a tree before a scan: lets the scanner skip directories whose
/// ctime has not changed and bundles whose files have not changed.
public struct KnownTree: Sendable {
    public struct Directory: Sendable {
        public var changeTime: Int64
        public var inode: UInt64
        public var trusted: Bool
        /// Its subdirectories' names (kept here rather than under a second copy of its path: at
        /// 250,000 directories that copy cost 25 MB).
        public fileprivate(set) var children: [FileName] = []
        /// Its number among the known directories (0, 1, 2…): what a scan records as visited.
        public fileprivate(set) var ordinal: UInt32 = 0

        public init(changeTime: Int64, inode: UInt64, trusted: Bool) {
            self.changeTime = changeTime
            self.inode = inode
            self.trusted = trusted
        }
    }

    public private(set) var directories: [FilePath: Directory] = [:]
    /// The stamps of the AppleDouble files beside the few directories that have one.
    public private(set) var sidecars: [FilePath: FileStamp] = [:]
    /// Stamps of each catalogued bundle's files, by bundle path.
    public private(set) var bundles: [FilePath: [FileStamp]] = [:]
    /// Each catalogued bundle's structural directories, by bundle path.
    public private(set) var structures: [FilePath: BundleStructure] = [:]

    public init() {}

    public var isEmpty: Bool { directories.isEmpty && bundles.isEmpty }

    /// Subdirectory names of a known directory.
    public func children(of path: FilePath) -> [FileName] { directories[path]?.children ?? [] }

    /// Adds a directory; its parent, if known, must have been added before (rows by path).
    public mutating func addDirectory(_ path: FilePath, _ directory: Directory, sidecar: FileStamp?, isRoot: Bool) {
        var directory = directory
        if let existing = directories[path] {
            directory.children = existing.children
            directory.ordinal = existing.ordinal
        } else {
            directory.ordinal = UInt32(directories.count)
        }
        directories[path] = directory
        if let sidecar { sidecars[path] = sidecar }
        if !isRoot { directories[path.parent]?.children.append(path.lastComponent) }
    }

    public mutating func addBundle(_ path: FilePath, stamps: [FileStamp], structure: BundleStructure) {
        bundles[path] = stamps
        if !structure.isEmpty { structures[path] = structure }
    }
}
