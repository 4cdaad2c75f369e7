public import BundleModel
public import SystemCalls

/// An archive's members as a tree the inspection rules read (`InspectionSource`): listings come
/// from the member headers (directories a zip leaves implicit are added), file contents and
/// executables' headers from what `ArchiveInspector`'s second pass kept. Symlinks are followed
/// within the tree only; an absolute or climbing target leads nowhere.
public final class ArchiveTree: InspectionSource {
    /// The archive's own path: what reads are confined to, for messages.
    public let confinement: FilePath
    public var hasExtendedAttributes: Bool { false }
    private(set) var members: [FilePath: ArchiveMember] = [:]
    private(set) var children: [FilePath: [FileName: FileType]] = [:]
    /// Member indexes stand in for inode numbers.
    private var ordinals: [FilePath: UInt64] = [:]
    var contents: [FilePath: [UInt8]] = [:]
    var binaries: [FilePath: BinaryReader.Result] = [:]
    /// Members whose data could not be read in the second pass, and why.
    var readErrors: [FilePath: String] = [:]

    init(archive: FilePath) {
        confinement = archive
        children[.here] = [:]
    }

    /// Paths the tree holds: members, and the directories their names imply without listing them.
    private(set) var count = 0

    /// Work per member is its name's length: the walk up stops at the first directory already
    /// known, above which everything is known too.
    func add(_ member: ArchiveMember) {
        // A later member of the same name replaces an earlier one, as extracting would.
        members[member.path] = member
        ordinals[member.path] = ordinals[member.path] ?? UInt64(ordinals.count + 1)
        var path = member.path
        var type = member.type
        while !path.isEmpty {
            let parent = path.parent
            let known = children[parent]?[path.lastComponent]
            if known == nil || type != .directory { children[parent, default: [:]][path.lastComponent] = type }
            if type == .directory, children[path] == nil { children[path] = [:] }
            if known != nil { break }
            count += 1
            path = parent
            type = .directory
        }
    }

    /// Every directory, parents before children (by depth, counted once per path rather than in
    /// every comparison: a sort that split both paths each time was cubic in a name's depth).
    var directories: [FilePath] {
        let keyed: [(depth: Int, path: FilePath)] = children.keys.map { (Self.depth($0), $0) }
        return keyed.sorted { $0.depth == $1.depth ? $0.path < $1.path : $0.depth < $1.depth }.map(\.path)
    }

    static func depth(_ path: FilePath) -> Int {
        path.isEmpty ? 0 : path.string.utf8.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
    }

    func entries(of directory: FilePath) -> [DirectoryEntry] {
        (children[directory] ?? [:]).map { DirectoryEntry(name: $0.key, type: $0.value, inode: ordinal(directory.appending($0.key))) }
    }

    private func ordinal(_ path: FilePath) -> UInt64 { ordinals[path] ?? UInt64(path.string.hashValue & 0x7FFF_FFFF) | 1 << 40 }

    private func memberStatus(_ path: FilePath) -> FileStatus? {
        if let member = members[path] {
            return FileStatus(type: member.type, permissions: member.permissions, size: member.size, inode: ordinal(path),
                              modificationTime: member.modificationTime * 1_000_000_000)
        }
        guard children[path] != nil else { return nil }
        return FileStatus(type: .directory, permissions: 0o755, size: 0, inode: ordinal(path), modificationTime: 0)
    }

    /// A path with every symlink in it followed inside the tree (at most 16 of them).
    func resolved(_ path: FilePath, followingLast: Bool = true) -> FilePath? {
        var pending = path.components
        var current = FilePath.here
        var hops = 0
        while !pending.isEmpty {
            let name = pending.removeFirst()
            let next = current.appending(name)
            guard let member = members[next], member.type == .symlink, pending.isEmpty ? followingLast : true else {
                guard children[current]?[name] != nil else { return nil }
                current = next
                continue
            }
            hops += 1
            guard hops <= 16, let target = member.linkTarget, !target.string.hasPrefix("/") else { return nil }
            var base = current.components
            var rest: [FileName] = []
            for component in target.components {
                if component == ".." { guard !base.isEmpty else { return nil }; base.removeLast() } else if component != "." { rest.append(component) }
            }
            current = .here
            pending = base + rest + pending
        }
        return current
    }

    public func list(_ relative: FilePath, recorder: ListingRecorder?) -> (entries: [DirectoryEntry], status: FileStatus)? {
        guard let path = resolved(relative), children[path] != nil, let status = memberStatus(path) else { return nil }
        return (entries(of: path), status)
    }

    public func status(_ relative: FilePath) -> FileStatus? { resolved(relative).flatMap(memberStatus) }

    public func entryStatus(_ name: FileName, in relative: FilePath) -> FileStatus? {
        resolved(relative).flatMap { memberStatus($0.appending(name)) }
    }

    public func readLink(_ name: FileName, in relative: FilePath) -> FilePath? {
        resolved(relative).flatMap { members[$0.appending(name)]?.linkTarget }
    }

    public func readRegularFile(_ relative: FilePath, limit: Int, knownRegular: Bool) throws -> (bytes: [UInt8], status: FileStatus) {
        let display = confinement.string + "/" + relative.string
        guard let path = resolved(relative), let status = memberStatus(path) else { throw ArchiveError("\(display): no such member") }
        guard status.type == .regular else { throw BoundedReadError.notRegularFile(path: display, type: status.type) }
        guard status.size <= Int64(limit) else { throw BoundedReadError.tooLarge(path: display, size: status.size, limit: limit) }
        if let error = readErrors[path] { throw ArchiveError(error) }
        guard let bytes = contents[path] else { throw ArchiveError("\(relative): not read from the archive") }
        return (bytes, status)
    }

    public func readPrefix(_ relative: FilePath, count: Int) throws -> [UInt8] {
        let bytes = try readRegularFile(relative, limit: Int.max, knownRegular: false).bytes
        return Array(bytes.prefix(count))
    }

    public func readBinary(_ relative: FilePath) throws -> (result: BinaryReader.Result, status: FileStatus) {
        guard let path = resolved(relative), let status = memberStatus(path) else { throw ArchiveError("\(relative): no such member") }
        guard status.type == .regular else { throw BoundedReadError.notRegularFile(path: relative.string, type: status.type) }
        if let error = readErrors[path] { throw ArchiveError(error) }
        guard let result = binaries[path] else { throw ArchiveError("\(relative): not read from the archive") }
        return (result, status)
    }
}
