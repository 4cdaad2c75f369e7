import GRDB

/// How often a scan's writes are checkpointed. SQLite copies the WAL into the database file every
/// 1,000 pages by default, with an fdatasync of each file every time, and copies again any page a
/// later commit touches (the ends of tables, index pages). A daemon's trickle of changes wants that;
/// a scan writing a whole tree is cheaper with a tenth as many checkpoints: on the benchmark tree,
/// 10 fdatasyncs instead of 49 to 58 and 7% fewer page writes. The WAL then grows to about 40 MB;
/// the scan ends with a checkpoint, and the next write starts the WAL again and cuts the file to
/// `journal_size_limit` (set when a catalogue is opened to write).
extension Catalogue {
    static let scanCheckpointPages = 10_000

    /// Runs `body` (a scan's writes) checkpointing every `scanCheckpointPages`, then checkpoints and
    /// restores the interval it found, also when `body` throws. The checkpoint is passive: it never
    /// waits for a reader (a view, the publisher), whose snapshot it leaves for a later one.
    public func checkpointingSparsely<T>(_ body: () throws -> T) throws -> T {
        let interval = try checkpointInterval()
        try setCheckpointInterval(Self.scanCheckpointPages)
        defer {
            _ = try? database.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            try? setCheckpointInterval(interval)
        }
        return try body()
    }

    /// Pages of WAL after which a commit checkpoints, on the writing connection.
    func checkpointInterval() throws -> Int {
        try database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? 0 }
    }

    private func setCheckpointInterval(_ pages: Int) throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = \(pages)") }
    }
}
