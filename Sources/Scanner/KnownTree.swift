public import BundleModel
import SystemCalls

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

    public private(set) var directories: [String: Directory] = [:]
    /// Subdirectory names by parent path.
    public private(set) var children: [String: [String]] = [:]
    /// Stamps of each catalogued bundle's files, by bundle path.
    public private(set) var bundles: [String: [FileStamp]] = [:]
    /// Each catalogued bundle's structural directories, by bundle path.
    public private(set) var structures: [String: BundleStructure] = [:]

    public init() {}

    public var isEmpty: Bool { directories.isEmpty && bundles.isEmpty }

    public mutating func addDirectory(_ path: String, _ directory: Directory, isRoot: Bool) {
        directories[path] = directory
        if !isRoot { children[Paths.parent(path), default: []].append(Paths.lastComponent(path)) }
    }

    public mutating func addBundle(_ path: String, stamps: [FileStamp], structure: BundleStructure) {
        bundles[path] = stamps
        if !structure.isEmpty { structures[path] = structure }
    }
}
