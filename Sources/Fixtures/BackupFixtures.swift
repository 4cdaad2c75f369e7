import BundleModel
import Codecs

/// Time Machine backups as a Mac leaves them on a file server (rule 34), written by our code with
/// the key names a Mac writes: the sparse bundle's Info.plist, the machine file, the snapshot
/// history, and band files (small: what is measured is their count and blocks, not their size).
extension TreeWriter {
    public struct Backup: Sendable {
        public var model = "MacBookPro18,3"
        public var hostUUID = "01234567-89AB-CDEF-0123-456789ABCDEF"
        public var machineAddress = "a4:83:e7:12:34:56"
        /// Completion dates of the snapshots, seconds since 2001 (plist dates); none: no history file.
        public var snapshots: [Double] = [815_000_000, 815_086_400]
        public var imageSize: Int64 = 2 << 40
        public var bandSize: Int64 = 8 << 20
        public var bands = 100
        /// Bytes written to each band.
        public var bandBytes = 4_096

        public init() {}
    }

    /// Writes a backup at `relative` (a `.sparsebundle`).
    public func timeMachineBackup(_ relative: String, _ backup: Backup = Backup()) {
        plist(relative + "/Info.plist", .dictionary([
            "CFBundleInfoDictionaryVersion": .string("6.0"), "band-size": .integer(backup.bandSize),
            "bundle-backingstore-version": .integer(1), "diskimage-bundle-type": .string("com.apple.diskimage.sparsebundle"),
            "size": .integer(backup.imageSize),
        ]))
        text(relative + "/token", "")
        plist(relative + "/com.apple.TimeMachine.MachineID.plist", .dictionary([
            "VerificationDate": .date(backup.snapshots.last ?? 0), "VerificationExtendedSkip": .bool(false), "VerificationState": .integer(1),
            "com.apple.backupd.BackupMachineAddress": .string(backup.machineAddress), "com.apple.backupd.HostUUID": .string(backup.hostUUID),
            "com.apple.backupd.ModelID": .string(backup.model),
        ]))
        if !backup.snapshots.isEmpty { snapshotHistory(relative, backup.snapshots) }
        directory(relative + "/bands")
        let contents = [UInt8](repeating: 0xA5, count: backup.bandBytes)
        for band in 0..<backup.bands { file(relative + "/bands/" + String(band, radix: 16), contents) }
    }

    /// Rewrites a backup's snapshot history, as a Mac does when a backup completes: a new file renamed over the old.
    public func snapshotHistory(_ relative: String, _ completions: [Double]) {
        let history = PlistValue.dictionary(["Snapshots": .array(completions.enumerated().map { index, date in
            .dictionary([
                "com.apple.backupd.SnapshotName": .string("snapshot-\(index + 1).backup"),
                "com.apple.backupd.SnapshotStartDate": .date(date - 600), "com.apple.backupd.SnapshotCompletionDate": .date(date),
            ])
        })])
        plist(relative + "/com.apple.TimeMachine.SnapshotHistory.plist.new", history)
        rename(relative + "/com.apple.TimeMachine.SnapshotHistory.plist.new", relative + "/com.apple.TimeMachine.SnapshotHistory.plist")
    }
}
