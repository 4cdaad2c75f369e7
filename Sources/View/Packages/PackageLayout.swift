import PaxTar
import SystemCalls

/// A package's tar as the view serves it: the layout, and who may read it.
struct PackageLayout: Sendable {
    let tar: TarLayout
    /// The read bits the archive may grant (SPEC.md, "Nothing leaks"): a class reads it only if
    /// every member grants that class read (and search, for directories), judged as `Access` judges
    /// any derived item: a member of another owner or group grants the package's owner or group
    /// only what it grants every class they might fall in.
    let readableMode: UInt32

    /// Lays the package at `packagePath` out now, owned by the package's owner and group.
    init(packagePath: FilePath) throws {
        let owner = try FileStatus.of(packagePath)
        tar = try TarLayout(packagePath: packagePath)
        readableMode = Access.derived(owner: owner, isDirectory: false, from: tar.members.compactMap(Self.source)).mode
    }

    /// What reading a member needs of its source: files are read, directories listed.
    private static func source(_ member: TarLayout.Member) -> (status: FileStatus, need: Access.Need)? {
        let need: Access.Need
        switch member.kind {
        case .file, .hardLink: need = .read
        case .directory: need = .list
        case .symlink, .fifo: return nil
        }
        var status = FileStatus(type: .regular, permissions: member.mode, size: member.size, inode: member.inode,
                                modificationTime: member.modificationTime)
        status.userID = member.userID
        status.groupID = member.groupID
        return (status, need)
    }
}
