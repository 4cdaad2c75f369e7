public import SystemCalls

/// A package presented as an uncompressed POSIX tar (pax format): every member gets a pax extended
/// header carrying its exact path, link target, size, nanosecond mtime and `user.*` extended
/// attributes, then a ustar header and its data, padded to 512 bytes; two zero blocks end the
/// archive. The layout (every member's offsets) comes from one walk of the package, so the size is
/// exact before any byte is read, and a read at any offset produces the same bytes as a sequential
/// one. The layout is also the snapshot reads are checked against (`TarReading`): a member that
/// changed since makes the read fail rather than return a torn archive.
public struct TarLayout: Sendable {
    public struct Member: Sendable {
        public enum Kind: UInt8, Sendable { case file, directory, symlink, fifo, hardLink }
        /// Archive path, e.g. `Chess.app/Contents/Info.plist` (directories end in `/`).
        public var name: FilePath
        public var kind: Kind
        public var mode: UInt32
        public var userID: UInt32
        public var groupID: UInt32
        public var size: Int64
        public var modificationTime: Int64
        /// A symlink's target as written, or for a hard link the member it is linked to.
        public var linkTarget: FilePath
        /// `user.*` extended attributes, as GNU tar and bsdtar restore them from `SCHILY.xattr.`.
        public var extendedAttributes: [(name: String, value: [UInt8])]
        /// What the source looked like when laid out: a read checks that it still does.
        public var inode: UInt64
        public var changeTime: Int64
        /// Where this member's headers start; its data follows `headerSize` bytes later.
        public var offset: Int64
        public var headerSize: Int64

        public var dataOffset: Int64 { offset + headerSize }
        public var paddedDataSize: Int64 { (size + 511) / 512 * 512 }
        public var end: Int64 { dataOffset + paddedDataSize }
    }

    public let members: [Member]
    public let size: Int64
    /// The directory the package is in: member names continue it to the source paths.
    let container: FilePath
    /// The latest modification time of any member: the archive's own.
    public let modificationTime: Int64
    /// What the archive's bytes are made of (every member's name, metadata, inode and times): two
    /// layouts of an unchanged package agree, so a layout made again can be known for the same
    /// archive.
    public let fingerprint: UInt64

    /// Walks a package directory (never following symlinks) and lays its members out, named from
    /// the package's real name. Devices and sockets are left out; FIFOs are archived as FIFOs,
    /// never opened; a file linked more than once inside the package is archived once and linked.
    public init(packagePath: FilePath) throws {
        var members: [Member] = []
        var offset: Int64 = 0
        var firstLinks: [FileIdentity: FilePath] = [:]

        func add(_ name: FilePath, _ status: FileStatus, kind: Member.Kind, link: FilePath = .here, source: FilePath) {
            var member = Member(
                name: name, kind: kind, mode: status.permissions, userID: status.userID, groupID: status.groupID,
                size: kind == .file ? status.size : 0, modificationTime: status.modificationTime, linkTarget: link,
                extendedAttributes: kind == .symlink ? [] : Self.userAttributes(of: source), inode: status.inode,
                changeTime: status.changeTime, offset: offset, headerSize: 0)
            member.headerSize = Int64(TarHeaders.headers(for: member).count)
            offset = member.end
            members.append(member)
        }
        func walk(_ path: FilePath, _ name: FilePath) throws {
            let directory = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
            add(FilePath(name.string + "/"), try directory.status(), kind: .directory, source: path)
            for entry in try directory.listDirectoryTyped().sorted(by: { $0.name < $1.name }) {
                let childPath = path.appending(entry.name)
                let childName = name.appending(entry.name)
                guard let status = try? directory.status(of: entry.name) else { continue }
                switch status.type {
                case .directory:
                    try walk(childPath, childName)
                case .regular where status.linkCount > 1:
                    if let first = firstLinks[status.identity] {
                        add(childName, status, kind: .hardLink, link: first, source: childPath)
                    } else {
                        firstLinks[status.identity] = childName
                        add(childName, status, kind: .file, source: childPath)
                    }
                case .regular: add(childName, status, kind: .file, source: childPath)
                case .symlink: add(childName, status, kind: .symlink, link: (try? directory.readLink(entry.name)) ?? .here, source: childPath)
                case .fifo: add(childName, status, kind: .fifo, source: childPath)
                default: continue
                }
            }
        }
        try walk(packagePath, FilePath(packagePath.lastComponent))
        self.members = members
        size = offset + 1024
        container = packagePath.parent
        modificationTime = members.map(\.modificationTime).max() ?? 0
        fingerprint = Self.fingerprint(of: members)
    }

    private static func fingerprint(of members: [Member]) -> UInt64 {
        var hasher = Hasher()
        for member in members {
            hasher.combine(member.name.string)
            hasher.combine(member.kind)
            hasher.combine(member.mode)
            hasher.combine(member.userID)
            hasher.combine(member.groupID)
            hasher.combine(member.size)
            hasher.combine(member.modificationTime)
            hasher.combine(member.changeTime)
            hasher.combine(member.inode)
            hasher.combine(member.linkTarget.string)
            for (name, value) in member.extendedAttributes {
                hasher.combine(name)
                hasher.combine(value)
            }
        }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The `user.` namespace only: `trusted.` and `security.` are not the user's to copy.
    static func userAttributes(of path: FilePath) -> [(name: String, value: [UInt8])] {
        guard let names = try? ExtendedAttributes.names(atPath: path), !names.isEmpty else { return [] }
        return names.filter { $0.hasPrefix("user.") }.sorted().compactMap { name in
            (try? ExtendedAttributes.value(name, atPath: path)).flatMap { $0 }.map { (name, $0) }
        }
    }

    /// The member whose headers or data contain `offset`, by binary search.
    func memberIndex(containing offset: Int64) -> Int? {
        var low = 0, high = members.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let member = members[middle]
            if offset < member.offset { high = middle - 1 } else if offset >= member.end { low = middle + 1 } else { return middle }
        }
        return nil
    }

    /// The source path of a member.
    func sourcePath(of member: Member) -> FilePath {
        container.appending(member.kind == .directory ? FilePath(String(member.name.string.utf8.dropLast())!) : member.name)
    }
}
