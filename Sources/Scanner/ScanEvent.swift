public import BundleModel

/// What the catalogue keeps about a directory: enough to tell on the next run, without listing
/// it, whether anything in it changed.
public struct DirectoryRow: Sendable, Equatable {
    public var path: String
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

    public init(path: String, changeTime: Int64, inode: UInt64, device: UInt64, lowercasedExtension: String?, trusted: Bool, sidecar: FileStamp?) {
        self.path = path
        self.changeTime = changeTime
        self.inode = inode
        self.device = device
        self.lowercasedExtension = lowercasedExtension
        self.trusted = trusted
        self.sidecar = sidecar
    }
}

/// What a scan reports to its sink, in an order that keeps the catalogue consistent: a bundle
/// before its directory's row, and a directory's row only after all its subdirectories' rows.
public enum ScanEvent: Sendable {
    /// A bundle or package that is new or changed.
    case bundle(BundleRecord)
    /// A catalogued bundle whose directory is no longer a bundle or package (it still exists).
    case bundleRemoved(path: String)
    /// A directory that was listed (new or changed), after its whole subtree.
    case directory(DirectoryRow)
}

/// Receives events in batches, on the scanner's threads; must be thread-safe.
public protocol ScanSink: Sendable {
    func receive(_ events: [ScanEvent])
}
