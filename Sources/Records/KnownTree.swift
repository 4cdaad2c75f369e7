public import BundleModel
public import SystemCalls

/// What the catalogue knew about a tree before a scan: lets the scanner skip directories whose
/// ctime has not changed and bundles whose files have not changed.
public struct KnownTree: Sendable {
    public struct Directory: Sendable {
        public var changeTime: Int64
        public var inode: UInt64
        public var trusted: Bool
        public var sidecar: FileStamp?

        public init(changeTime: Int64, inode: UInt64, trusted: Bool, sidecar: FileStamp?) {
            self.changeTime = changeTime
            self.inode = inode
            self.trusted = trusted
            self.sidecar = sidecar
        }
    }

    public private(set) var directories: [FilePath: Directory] = [:]
    /// Subdirectory names by parent path.
    public private(set) var children: [FilePath: [FileName]] = [:]
    /// Stamps of each catalogued bundle's files, by bundle path.
    public private(set) var bundles: [FilePath: [FileStamp]] = [:]
    /// Each catalogued bundle's structural directories, by bundle path.
    public private(set) var structures: [FilePath: BundleStructure] = [:]

    public init() {}

    public var isEmpty: Bool { directories.isEmpty && bundles.isEmpty }

    public mutating func addDirectory(_ path: FilePath, _ directory: Directory, isRoot: Bool) {
        directories[path] = directory
        if !isRoot { children[path.parent, default: []].append(path.lastComponent) }
    }

    public mutating func addBundle(_ path: FilePath, stamps: [FileStamp], structure: BundleStructure) {
        bundles[path] = stamps
        if !structure.isEmpty { structures[path] = structure }
    }
}
