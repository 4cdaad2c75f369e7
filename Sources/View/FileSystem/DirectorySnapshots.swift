import Synchronization

/// Listings for READDIR when the kernel opens directories itself (`no_opendir`): then no OPENDIR
/// or RELEASEDIR reaches the daemon, READDIR comes without a handle, and the kernel keeps the
/// listing it was given until told the directory changed. A listing read from offset 0 is built
/// afresh and kept per node, so the rest of that pass reads the same snapshot, until the pass
/// reads past its last entry.
final class DirectorySnapshots: Sendable {
    private let snapshots = Mutex([UInt64: DirectorySnapshot]())
    /// Passes in progress at once are few (a reader that stops early leaves one behind); past
    /// this many, all are dropped and a pass that continues rebuilds its listing.
    static let limit = 64

    func snapshot(of id: UInt64, offset: Int, build: () throws(ViewError) -> DirectorySnapshot) throws(ViewError) -> DirectorySnapshot {
        if offset > 0, let kept = snapshots.withLock({ $0[id] }) { return kept }
        let snapshot = try build()
        snapshots.withLock { snapshots in
            if snapshots.count >= Self.limit { snapshots.removeAll() }
            snapshots[id] = snapshot
        }
        return snapshot
    }

    func forget(_ id: UInt64) { _ = snapshots.withLock { $0.removeValue(forKey: id) } }
}
