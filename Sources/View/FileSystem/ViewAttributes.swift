import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `struct stat` for the kernel: real items pass through; packages, synthesized directories and
/// files get attributes of their own.
enum Attributes {
    static func of(_ status: FileStatus) -> stat {
        var attributes = stat()
        attributes.st_ino = UInt(status.inode)
        // The kernel shows its own device number; this one is for the view's own bookkeeping.
        attributes.st_dev = UInt(status.device)
        attributes.st_mode = status.type.modeBits | status.permissions
        attributes.st_nlink = UInt(status.linkCount)
        attributes.st_uid = status.userID
        attributes.st_gid = status.groupID
        attributes.st_rdev = UInt(status.specialDevice)
        attributes.st_size = Int(status.size)
        attributes.st_blksize = 4096
        attributes.st_blocks = Int(status.blocks)
        attributes.st_atim = time(status.accessTime)
        attributes.st_mtim = time(status.modificationTime)
        attributes.st_ctim = time(status.changeTime)
        return attributes
    }

    static func time(_ nanoseconds: Int64) -> timespec {
        let (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return remainder < 0 ? timespec(tv_sec: Int(seconds - 1), tv_nsec: Int(remainder + 1_000_000_000))
            : timespec(tv_sec: Int(seconds), tv_nsec: Int(remainder))
    }

    /// A package as one read-only regular file: the tar's exact size, the directory's owner and
    /// read permissions, the latest modification time of anything in it.
    static func package(directory: FileStatus, content: ContentVersion) -> stat {
        var attributes = of(directory)
        attributes.st_mode = S_IFREG | content.readableMode
        attributes.st_nlink = 1
        attributes.st_size = Int(content.size)
        attributes.st_blocks = Int((content.size + 511) / 512)
        attributes.st_mtim = time(max(content.modificationTime, directory.modificationTime))
        attributes.st_ctim = attributes.st_mtim
        return attributes
    }

    /// The inode number a synthesized item shows, the same in its attributes and in the listing
    /// of its directory: far above real inode numbers, stable while the daemon runs.
    static func syntheticInode(_ identity: NodeIdentity) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(identity)
        return 0x4000_0000_0000_0000 | (UInt64(bitPattern: Int64(hasher.finalize())) & 0x3FFF_FFFF_FFFF_FFFF)
    }

    /// Synthesized items get inode numbers of their own, the source root's times, and the owner,
    /// group and mode their sources allow (`Access`).
    static func synthesized(_ identity: NodeIdentity, isDirectory: Bool, size: Int, access: Access, root: FileStatus) -> stat {
        var attributes = of(root)
        attributes.st_ino = UInt(syntheticInode(identity))
        attributes.st_uid = access.userID
        attributes.st_gid = access.groupID
        attributes.st_mode = (isDirectory ? S_IFDIR : S_IFREG) | access.mode
        attributes.st_nlink = isDirectory ? 2 : 1
        attributes.st_size = size
        attributes.st_blocks = (size + 511) / 512
        return attributes
    }
}

extension ViewFileSystem {
    /// GETATTR. A real file kept open answers from its descriptor (its path may have changed
    /// since); a package node with the content it was looked up with, whatever the package holds now.
    func attributes(of id: UInt64) throws(ViewError) -> (attributes: stat, timeout: Double) {
        let node = try node(id)
        let timeout = timeout(for: node.kind)
        switch node.kind {
        case .source, .raw:
            if let descriptor = openFiles.existing(id, generation: node.generation), let status = try? descriptor.status() {
                return (Attributes.of(status), timeout)
            }
            let path = try realPath(id)
            guard let status = try? FileStatus.of(path), status.inode == node.inode, status.device == node.device else { throw .notFound }
            return (Attributes.of(status), timeout)
        case .package:
            let path = try realPath(id)
            guard let status = try? FileStatus.of(path), status.type == .directory, status.inode == node.inode,
                  status.device == node.device, let content = node.version
            else { throw .notFound }
            return (Attributes.package(directory: status, content: content), timeout)
        case .info, .icon, .uuidInfo:
            guard let bytes = syntheticBytes(node.kind, detail: node.detail) else { throw .notFound }
            return (synthesizedAttributes(node.kind, detail: node.detail, size: bytes.count), timeout)
        case .bundleView:
            guard let key = node.detail.bundleView, views.bundlePath(forView: key) != nil else { throw .notFound }
            return (synthesizedAttributes(.bundleView, detail: node.detail, size: 0), timeout)
        case .uuidView:
            guard case let .uuid(key) = node.detail, !uuids.accessSources(key).isEmpty else { throw .notFound }
            return (synthesizedAttributes(node.kind, detail: node.detail, size: 0), timeout)
        case .symbols:
            guard case let .symbolPath(path) = node.detail, symbols.exists(path) else { throw .notFound }
            return (synthesizedAttributes(node.kind, detail: node.detail, size: 0), timeout)
        case .control, .byID, .byPath, .resources, .byUUID:
            return (synthesizedAttributes(node.kind, detail: node.detail, size: 0), timeout)
        case .symbolFile:
            return (try symbolFileAttributes(id, node), timeout)
        }
    }

    /// The attributes of a synthesized item, with the access its sources allow.
    func synthesizedAttributes(_ kind: NodeKind, detail: SyntheticDetail, size: Int, lookups: ListingLookups = ListingLookups()) -> stat {
        Attributes.synthesized(.synthesized(kind, detail: detail), isDirectory: !Self.isSyntheticFile(kind), size: size,
                               access: access(of: kind, detail: detail, lookups: lookups), root: rootStatus)
    }

    /// A package's attributes and content as laid out now.
    func packageAttributes(_ path: FilePath) throws(ViewError) -> (attributes: stat, content: ContentVersion) {
        guard let status = try? FileStatus.of(path), status.type == .directory else { throw .notFound }
        let content = ContentVersion(try ViewError.translating { try layouts.layout(of: path) })
        return (Attributes.package(directory: status, content: content), content)
    }
}
