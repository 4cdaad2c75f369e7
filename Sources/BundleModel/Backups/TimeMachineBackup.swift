public import Codecs
public import SystemCalls

/// Rule 34: a Time Machine backup on a file server, a `.sparsebundle` package holding
/// `com.apple.TimeMachine.MachineID.plist`, as its property lists and its bands say. The key names
/// are the ones a Mac writes (Docs/backups.md).
public struct TimeMachineBackup: Sendable, Hashable {
    public static let machineIDFile = FileName("com.apple.TimeMachine.MachineID.plist")
    public static let snapshotHistoryFile = FileName("com.apple.TimeMachine.SnapshotHistory.plist")
    public static let bandsDirectory = FileName("bands")
    /// The files in the bundle a backup's record is read from (with `bands/`).
    public static let readFiles = [FileName("Info.plist"), machineIDFile, snapshotHistoryFile]

    /// `com.apple.backupd.ModelID` (`MacBookPro18,3`), `com.apple.backupd.HostUUID` (the Mac's
    /// hardware UUID) and `com.apple.backupd.BackupMachineAddress` (its Ethernet address).
    public var model: String?
    public var hostUUID: String?
    public var machineAddress: String?
    /// The entries of `Snapshots` in the snapshot history, and the latest
    /// `com.apple.backupd.SnapshotCompletionDate` among them (seconds since 2001, as plist dates).
    public var snapshots = 0
    public var lastSnapshot: Double?
    /// The image's `size` and `band-size` from the sparse bundle's Info.plist.
    public var size: UInt64?
    public var bandSize: UInt64?
    /// The files in `bands/`, and the bytes they take on disk (allocated blocks).
    public var bands = 0
    public var sizeOnDisk: UInt64 = 0

    public init() {}

    /// Whether a directory is a backup by rule 34: named `.sparsebundle` and holding the machine file.
    public static func isBackup(lowercasedExtension: String?, entries: [DirectoryEntry]) -> Bool {
        lowercasedExtension == "sparsebundle" && entries.contains { $0.name == machineIDFile }
    }

    /// What `com.apple.TimeMachine.MachineID.plist` says.
    public mutating func readMachineID(_ dictionary: [String: PlistValue]) {
        model = Self.text(dictionary["com.apple.backupd.ModelID"])
        hostUUID = Self.text(dictionary["com.apple.backupd.HostUUID"])
        machineAddress = Self.text(dictionary["com.apple.backupd.BackupMachineAddress"])
    }

    /// What `com.apple.TimeMachine.SnapshotHistory.plist` says: its snapshots and the last one's
    /// date. An entry is a snapshot when it is a dictionary that names one (a non-empty
    /// `SnapshotName`: one in progress has no completion date yet) or holds a completion date a
    /// calendar can show; anything else in the array (a string, an empty dictionary) is not counted.
    public mutating func readSnapshotHistory(_ dictionary: [String: PlistValue]) {
        let entries = (dictionary["Snapshots"]?.array ?? []).compactMap(\.dictionary)
        func completion(_ entry: [String: PlistValue]) -> Double? {
            // A binary plist's date is any double: one no calendar can show is no date.
            guard case let .date(seconds)? = entry["com.apple.backupd.SnapshotCompletionDate"], PlistDate.isRepresentable(seconds) else { return nil }
            return seconds
        }
        let valid = entries.filter { entry in Self.text(entry["com.apple.backupd.SnapshotName"]) != nil || completion(entry) != nil }
        snapshots = valid.count
        lastSnapshot = valid.compactMap(completion).max()
    }

    /// What the sparse bundle's own Info.plist says about the image.
    public mutating func readImageInfo(_ info: [String: PlistValue]) {
        size = Self.count(info["size"])
        bandSize = Self.count(info["band-size"])
    }

    private static func text(_ value: PlistValue?) -> String? {
        guard let text = value?.string?.trimmingSpaces, !text.isEmpty else { return nil }
        return text
    }

    private static func count(_ value: PlistValue?) -> UInt64? {
        switch value {
        case let .integer(number)?: number >= 0 ? UInt64(number) : nil
        case let .unsignedInteger(number)?: number
        default: nil
        }
    }
}

extension TimeMachineBackup {
    /// As JSON for people and programs (`show --json`): `model`, `hostUUID`, `machineAddress`,
    /// `snapshots`, `lastSnapshot` (ISO 8601), `size`, `bandSize`, `bands`, `sizeOnDisk`. The
    /// catalogue's column keeps it otherwise (`BackupCoding` in CatalogueReading).
    public func json() -> JSONValue {
        func number(_ value: UInt64?) -> JSONValue { value.map { $0 <= UInt64(Int64.max) ? .integer(Int64($0)) : .unsignedInteger($0) } ?? .null }
        return .object([
            ("model", .optional(model)), ("hostUUID", .optional(hostUUID)), ("machineAddress", .optional(machineAddress)),
            ("snapshots", .integer(Int64(snapshots))), ("lastSnapshot", lastSnapshot.map { .string(PlistDate.formatISO8601($0)) } ?? .null),
            ("size", number(size)), ("bandSize", number(bandSize)), ("bands", .integer(Int64(bands))), ("sizeOnDisk", number(sizeOnDisk)),
        ])
    }
}
