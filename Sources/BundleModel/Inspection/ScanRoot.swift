public import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A directory tree being read. Every file bundlefs reads for a bundle is opened relative to the
/// root with RESOLVE_BENEATH, so neither `..` nor a symlink can lead a read out of the tree, unless
/// the root lets trusted links lead out (an index: `TrustedLinks`).
public struct ScanRoot: Sendable, BeneathReading {
    /// Absolute, normalised path.
    public let path: FilePath
    let descriptor: Descriptor
    let confinement: Confinement

    /// How far reads may go.
    public enum Confinement: Sendable {
        /// Never out of the tree: what the view synthesizes for others (rule 12's limit).
        case beneath
        /// Out of the tree through links owned by root or the reading user (an index, rule 12).
        case trustedLinksOut
        /// Wherever links lead: the file system root of `show` and `resolve`, which read one
        /// bundle as their user, as CFBundle follows links.
        case none
    }

    public init(path: FilePath, confinement: Confinement = .beneath) throws {
        let absolute = path.absolute(base: .root)
        self.path = absolute
        descriptor = try Descriptor.open(absolute, flags: O_PATH_DIRECTORY)
        self.confinement = confinement
    }

    /// The file system root, unconfined: reads go wherever links lead (used by `show` and
    /// `resolve`, which read one bundle as its user and synthesize nothing for others).
    public static func fileSystemRoot() throws -> ScanRoot { try ScanRoot(path: .root, confinement: .none) }

    /// `path` relative to the root, or nil when outside it.
    public func relative(_ path: FilePath) -> FilePath? { path.relative(to: self.path) }

    public func absolute(_ relative: FilePath) -> FilePath { path.appending(relative) }

    /// Opens a path relative to the root, leaving it only as far as its confinement allows.
    public func open(_ relative: FilePath, flags: Int32) throws -> Descriptor {
        switch confinement {
        case .beneath:
            return try descriptor.openBeneath(relative, flags: flags)
        case .trustedLinksOut:
            do {
                return try descriptor.openBeneath(relative, flags: flags)
            } catch let error as SystemError where error.errno == EXDEV {
                return try TrustedLinks.open(relative, from: descriptor, rootPath: path, flags: flags | O_CLOEXEC,
                                             followFinal: flags & O_NOFOLLOW == 0)
            }
        case .none:
            return try Descriptor.open(path.appending(relative), flags: flags | O_CLOEXEC)
        }
    }
}

/// Opening paths relative to a scan root without leaving it; the reads below are built on `open`.
public protocol BeneathReading {
    /// Opens a path relative to the root, never leaving the root.
    func open(_ relative: FilePath, flags: Int32) throws -> Descriptor
    func absolute(_ relative: FilePath) -> FilePath
}

/// Opens paths relative to the root, but starts the lookup at an open directory inside the tree (a
/// bundle being inspected) when the path lies under it: the kernel then walks two or three
/// components instead of the whole path. A path that leaves that directory through a symlink is
/// retried from the root, so what can be reached is exactly what the root allows.
struct ResolutionScope: BeneathReading {
    let root: ScanRoot
    let base: Descriptor?
    /// The base directory's path relative to the root.
    let baseRelative: FilePath

    func open(_ relative: FilePath, flags: Int32) throws -> Descriptor {
        if let base, let inner = relative.relative(to: baseRelative) {
            do {
                return try base.openBeneath(inner, flags: flags)
            } catch let error as SystemError where error.errno == EXDEV {
                // It leaves the bundle: allowed, as long as it stays in the tree.
            }
        }
        return try root.open(relative, flags: flags)
    }

    func absolute(_ relative: FilePath) -> FilePath { root.absolute(relative) }

    /// Opens a path relative to the root through no symlink at all, not even a final one.
    func openWithoutLinks(_ relative: FilePath, flags: Int32) throws -> Descriptor {
        if let base, let inner = relative.relative(to: baseRelative) { return try base.openBeneathWithoutLinks(inner, flags: flags) }
        return try root.descriptor.openBeneathWithoutLinks(relative, flags: flags)
    }
}

extension BeneathReading {
    /// Status of a path relative to the root, following symlinks that stay inside; nil when it
    /// does not exist or cannot be reached.
    public func status(_ relative: FilePath) -> FileStatus? {
        guard let handle = try? open(relative, flags: O_PATH_ONLY) else { return nil }
        return try? handle.status()
    }

    /// Reads a whole regular file relative to the root. Its type and size are checked through an
    /// O_PATH handle first, so a FIFO or a device is never opened and an oversized file never read.
    /// `knownRegular` says a listing just showed it as a regular file (not a symlink), which makes
    /// the O_PATH check redundant; the type is still verified after opening, non-blocking.
    public func readRegularFile(_ relative: FilePath, limit: Int, knownRegular: Bool = false) throws -> (bytes: [UInt8], status: FileStatus) {
        let display = absolute(relative).string
        var before: FileStatus?
        if !knownRegular {
            let status = try open(relative, flags: O_PATH_ONLY).status()
            guard status.type == .regular else { throw BoundedReadError.notRegularFile(path: display, type: status.type) }
            guard status.size <= Int64(limit) else { throw BoundedReadError.tooLarge(path: display, size: status.size, limit: limit) }
            before = status
        }
        let file = try open(relative, flags: Descriptor.probeRead | O_NOFOLLOW_IF(knownRegular))
        let status = try file.status()
        guard status.type == .regular, before.map({ $0.inode == status.inode }) ?? true else {
            throw BoundedReadError.notRegularFile(path: display, type: status.type)
        }
        return (try file.readRegularFile(limit: limit, status: status), status)
    }

    /// Whether anything (even a dangling symlink) is at a path, without following a final symlink.
    func isPresent(_ relative: FilePath) -> Bool {
        (try? open(relative, flags: O_PATH_ONLY | O_NOFOLLOW)) != nil
    }

    /// The first `count` bytes of a regular file relative to the root (never opening anything else).
    func readPrefix(_ relative: FilePath, count: Int) throws -> [UInt8] {
        let before = try open(relative, flags: O_PATH_ONLY).status()
        guard before.type == .regular else { throw BoundedReadError.notRegularFile(path: absolute(relative).string, type: before.type) }
        let file = try open(relative, flags: Descriptor.probeRead)
        guard try file.status().type == .regular else { throw BoundedReadError.notRegularFile(path: absolute(relative).string, type: before.type) }
        return try file.read(at: 0, count: count)
    }

    /// The entries of a directory relative to the root; nil when it cannot be listed. Listings are
    /// offered to `recorder`, so a walk can reuse them rather than list the directory again.
    func list(_ relative: FilePath, recorder: ListingRecorder? = nil) -> (entries: [DirectoryEntry], status: FileStatus)? {
        guard let directory = try? open(relative, flags: Descriptor.directoryNoFollowFinal) else { return nil }
        recorder?.beforeListing?(absolute(relative), directory)
        guard let status = try? directory.status(),
              let entries = try? directory.listDirectoryTyped()
        else { return nil }
        recorder?.record(path: absolute(relative), entries: entries, status: status, descriptor: directory)
        return (entries, status)
    }
}

/// Collects the listings an inspection made (its `Contents`, `Resources`, ...), by absolute path.
/// One per inspection, on its thread: not Sendable.
public final class ListingRecorder {
    public struct Listed: Sendable {
        public var entries: [DirectoryEntry]
        /// fstat of the directory, taken before it was listed.
        public var status: FileStatus
        /// Still open, so the walk can read its attributes without looking the path up again.
        public var descriptor: Descriptor
    }

    public private(set) var listings: [(path: FilePath, listed: Listed)] = []
    /// Called with each directory once it is open and before it is listed.
    let beforeListing: (@Sendable (FilePath, Descriptor) -> Void)?

    public init(beforeListing: (@Sendable (FilePath, Descriptor) -> Void)? = nil) {
        self.beforeListing = beforeListing
    }

    func record(path: FilePath, entries: [DirectoryEntry], status: FileStatus, descriptor: Descriptor) {
        listings.append((path, Listed(entries: entries, status: status, descriptor: descriptor)))
    }
}
