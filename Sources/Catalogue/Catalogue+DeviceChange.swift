import GRDB
public import SystemCalls

/// A file system numbered otherwise since it was indexed (an LVM volume or a btrfs subvolume after
/// a reboot): its files keep their inodes and times, but a symbol store compares the device too
/// (Docs/symbols.md, "Which file is served"), and the walk compares directories by ctime and inode
/// only, so nothing would ever read them again.
extension Catalogue {
    /// When the root's directory was recorded on another device than `device`, makes every
    /// directory under it look changed, so that the index about to run reads everything again and
    /// records the files as they are numbered now. True when it did.
    public func forgetDirectories(under root: FilePath, unlessOnDevice device: UInt64) throws -> Bool {
        let recorded = try read { db in try Int64.fetchOne(db, sql: "SELECT device FROM directories WHERE path = ?", arguments: [root.string]) }
        guard let recorded, UInt64(bitPattern: recorded) != device else { return false }
        try write { db in
            try db.execute(sql: "UPDATE directories SET change_time = -1 WHERE \(Self.subtree())", arguments: Self.subtreeArguments(root))
        }
        return true
    }
}
