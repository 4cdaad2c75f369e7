@testable import Catalogue
import BundleModel
import Codecs
import Fixtures
import Testing

/// The `backup` column (rule 34): a Time Machine backup's record comes back from it exactly, its
/// date included; text that is not one is no backup, and members of the wrong type are left out.
@Suite struct BackupCodingTests {
    static let full: TimeMachineBackup = {
        var backup = TimeMachineBackup()
        backup.model = "Mac14,2"
        backup.hostUUID = "0123-ABCD"
        backup.machineAddress = "00:11:22:33:44:55"
        backup.snapshots = 4
        backup.lastSnapshot = 810_000_000.5
        backup.size = .max
        backup.bandSize = 8 << 20
        backup.bands = 3
        backup.sizeOnDisk = 24 << 20
        return backup
    }()

    @Test func aBackupComesBackExactly() {
        let text = BackupCoding.encode(Self.full)
        // The format rows already written hold: the date as seconds since 2001, not ISO 8601.
        #expect(text == #"{"model":"Mac14,2","hostUUID":"0123-ABCD","machineAddress":"00:11:22:33:44:55","snapshots":4,"lastSnapshot":810000000.5,"size":18446744073709551615,"bandSize":8388608,"bands":3,"sizeOnDisk":25165824}"#)
        #expect(BackupCoding.decode(text) == Self.full)
        #expect(BackupCoding.decode(BackupCoding.encode(TimeMachineBackup())) == TimeMachineBackup())
        #expect(BackupCoding.encode(nil as TimeMachineBackup?) == nil)
    }

    @Test(arguments: [nil, "", "nonsense", "[1]", #""backup""#, "{", #"{"model":"#, "null", "\u{0}"])
    func textThatIsNoObjectIsNoBackup(_ text: String?) {
        #expect(BackupCoding.decode(text) == nil)
    }

    @Test func membersOfTheWrongTypeAreLeftOut() {
        let text = #"{"model":7,"hostUUID":null,"snapshots":"many","lastSnapshot":"yesterday","size":-1,"bandSize":1.5,"bands":-3,"sizeOnDisk":[1],"other":true}"#
        #expect(BackupCoding.decode(text) == TimeMachineBackup())
        // A date written as a whole number is read as one.
        #expect(BackupCoding.decode(#"{"lastSnapshot":800000000}"#)?.lastSnapshot == 800_000_000)
    }

    /// Thousands of random records: each comes back as it was.
    @Test func randomBackupsComeBackAsTheyWere() {
        var generator = SeededGenerator(seed: 34)
        func text() -> String? { [nil, "", " ", "Mac14,2", "\u{0}", "é", "\"\\\n"][Int(generator.next() % 7)] }
        func count() -> UInt64? { generator.next() % 4 == 0 ? nil : [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, generator.next()][Int(generator.next() % 6)] }
        for _ in 0..<3_000 {
            var backup = TimeMachineBackup()
            backup.model = text()
            backup.hostUUID = text()
            backup.machineAddress = text()
            backup.snapshots = Int(generator.next() % 1_000)
            backup.lastSnapshot = [nil, 0, -1e12, 1e12, 8.1e8 + 0.25, Double(Int64(bitPattern: generator.next()) >> 11) / 3][Int(generator.next() % 6)]
            backup.size = count()
            backup.bandSize = count()
            backup.bands = Int(generator.next() % 100_000)
            backup.sizeOnDisk = count() ?? 0
            #expect(BackupCoding.decode(BackupCoding.encode(backup)) == backup, "\(backup)")
        }
    }
}
