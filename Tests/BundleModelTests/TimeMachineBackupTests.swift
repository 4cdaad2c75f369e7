import BundleModel
import Codecs
import Fixtures
import SystemCalls
import Testing

/// Rule 34 from the files' own key names: the machine file, the snapshot history, the image's
/// Info.plist; values of the wrong type are left out, never trusted or fatal.
@Suite struct TimeMachineBackupTests {
    @Test func readsTheKeysAMacWrites() {
        var backup = TimeMachineBackup()
        backup.readMachineID([
            "VerificationState": .integer(1), "com.apple.backupd.ModelID": .string("Mac14,2"),
            "com.apple.backupd.HostUUID": .string("0123-ABCD"), "com.apple.backupd.BackupMachineAddress": .string("00:11:22:33:44:55"),
        ])
        backup.readSnapshotHistory(["Snapshots": .array([
            .dictionary(["com.apple.backupd.SnapshotName": .string("a"), "com.apple.backupd.SnapshotCompletionDate": .date(800_000_000)]),
            .dictionary(["com.apple.backupd.SnapshotName": .string("c"), "com.apple.backupd.SnapshotCompletionDate": .date(810_000_000.5)]),
            .dictionary(["com.apple.backupd.SnapshotName": .string("b"), "com.apple.backupd.SnapshotCompletionDate": .date(805_000_000)]),
            // An entry without a completion date (a backup in progress) is a snapshot with no date.
            .dictionary(["com.apple.backupd.SnapshotName": .string("d")]),
        ])])
        backup.readImageInfo(["size": .integer(1 << 40), "band-size": .integer(8 << 20)])
        #expect(backup.model == "Mac14,2" && backup.hostUUID == "0123-ABCD" && backup.machineAddress == "00:11:22:33:44:55")
        #expect(backup.snapshots == 4)
        #expect(backup.lastSnapshot == 810_000_000.5)
        #expect(backup.size == 1 << 40 && backup.bandSize == 8 << 20)
        // The JSON people read gives the date in ISO 8601 (the catalogue's keeps it exact: BackupCodingTests).
        #expect(backup.json()["lastSnapshot"] == .string(PlistDate.formatISO8601(810_000_000.5)))
    }

    @Test func valuesOfTheWrongTypeAreLeftOut() {
        var backup = TimeMachineBackup()
        backup.readMachineID(["com.apple.backupd.ModelID": .integer(3), "com.apple.backupd.HostUUID": .string("  ")])
        backup.readSnapshotHistory(["Snapshots": .string("many")])
        backup.readImageInfo(["size": .string("big"), "band-size": .integer(-1)])
        #expect(backup == TimeMachineBackup())
        // Entries that are not snapshots are not counted: not a dictionary, no name and no date
        // a calendar can show, an empty name.
        backup.readSnapshotHistory(["Snapshots": .array([
            .string("x"), .integer(7), .dictionary([:]), .dictionary(["com.apple.backupd.SnapshotCompletionDate": .string("yesterday")]),
            .dictionary(["com.apple.backupd.SnapshotName": .string("  ")]),
        ])])
        #expect(backup.snapshots == 0 && backup.lastSnapshot == nil)
        backup.readSnapshotHistory(["Snapshots": .array([.nan, .infinity, -1e300].map { .dictionary(["com.apple.backupd.SnapshotCompletionDate": .date($0)]) })])
        #expect(backup.snapshots == 0 && backup.lastSnapshot == nil)
        // A named one keeps its place even with a date no calendar shows; a dated one without a name counts.
        backup.readSnapshotHistory(["Snapshots": .array([
            .dictionary(["com.apple.backupd.SnapshotName": .string("a"), "com.apple.backupd.SnapshotCompletionDate": .date(.nan)]),
            .dictionary(["com.apple.backupd.SnapshotCompletionDate": .date(800_000_000)]), .string("not one"),
        ])])
        #expect(backup.snapshots == 2 && backup.lastSnapshot == 800_000_000)
    }

    @Test func aBackupIsASparseBundleWithTheMachineFile() {
        let machine = DirectoryEntry(name: TimeMachineBackup.machineIDFile, type: .regular, inode: 1)
        #expect(TimeMachineBackup.isBackup(lowercasedExtension: "sparsebundle", entries: [machine]))
        #expect(!TimeMachineBackup.isBackup(lowercasedExtension: "sparsebundle", entries: []))
        #expect(!TimeMachineBackup.isBackup(lowercasedExtension: "dmg", entries: [machine]))
    }

    /// Thousands of random values under the keys read: whatever they are, reading never traps
    /// (that what it keeps comes back from the catalogue's column: BackupCodingTests).
    @Test func randomValuesUnderTheKeysNeverTrap() {
        var generator = SeededGenerator(seed: 34)
        let keys = ["com.apple.backupd.ModelID", "com.apple.backupd.HostUUID", "com.apple.backupd.BackupMachineAddress", "Snapshots",
                    "com.apple.backupd.SnapshotCompletionDate", "size", "band-size"]
        func value(_ depth: Int) -> PlistValue {
            switch generator.next() % (depth > 2 ? 7 : 9) {
            case 0: return .string(["", " ", "Mac14,2", "\u{0}", "é"][Int(generator.next() % 5)])
            case 1: return .integer(Int64(bitPattern: generator.next()))
            case 2: return .unsignedInteger(generator.next())
            case 3: return .real(Double(Int64(bitPattern: generator.next() >> 8)) / 7)
            case 4: return .date([0, -1e12, 1e12, .nan, .infinity, 8.1e8][Int(generator.next() % 6)])
            case 5: return .bool(generator.next() % 2 == 0)
            case 6: return .data([1, 2])
            case 7: return .array((0..<Int(generator.next() % 4)).map { _ in value(depth + 1) })
            default: return .dictionary(Dictionary((0..<Int(generator.next() % 4)).map { _ in (keys[Int(generator.next() % UInt64(keys.count))], value(depth + 1)) },
                                                  uniquingKeysWith: { $1 }))
            }
        }
        for _ in 0..<3_000 {
            let dictionary = Dictionary((0..<Int(generator.next() % 6)).map { _ in (keys[Int(generator.next() % UInt64(keys.count))], value(0)) },
                                        uniquingKeysWith: { $1 })
            var backup = TimeMachineBackup()
            backup.readMachineID(dictionary)
            backup.readSnapshotHistory(dictionary)
            backup.readImageInfo(dictionary)
            _ = backup.json()
        }
    }
}
