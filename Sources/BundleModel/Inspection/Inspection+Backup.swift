import Codecs
import SystemCalls

/// Reading a Time Machine backup during inspection (rule 34): its two property lists (the image's
/// Info.plist is read as any Info file is) and one count and sum of its bands. Each file read is
/// stamped, and so is `bands/` (a band added or removed changes it), so an index reads a backup
/// again when it changed; the watcher reads it again when its property lists change, not for
/// every band written (`BundleStructure.inert`).
extension Inspection {
    /// The most a backup's property list is read: a Mac writes a few kilobytes (a snapshot history
    /// of years stays far below).
    static let backupPlistLimit = 4 << 20

    func readBackup(bundle: FilePath, entries: [DirectoryEntry], into record: inout BundleRecord) {
        var backup = TimeMachineBackup()
        record.kind = .backup
        backup.readImageInfo(record.info)
        if let machine = readBackupPlist(TimeMachineBackup.machineIDFile, bundle: bundle, into: &record) { backup.readMachineID(machine) }
        if entries.contains(where: { $0.name == TimeMachineBackup.snapshotHistoryFile }),
           let history = readBackupPlist(TimeMachineBackup.snapshotHistoryFile, bundle: bundle, into: &record) {
            backup.readSnapshotHistory(history)
        }
        let bands = FilePath(TimeMachineBackup.bandsDirectory)
        if let usage = root.filesUsage(in: bundle.appending(bands), recorder: recorder) {
            backup.bands = usage.files
            backup.sizeOnDisk = usage.allocated
            record.stamps.append(FileStamp(path: bands, changeTime: usage.status.changeTime, size: usage.status.size, inode: usage.status.inode))
        } else if entries.contains(where: { $0.name == TimeMachineBackup.bandsDirectory }) {
            record.warnings.append("\(bands)/ cannot be listed: its size on disk is not known")
        }
        record.backup = backup
    }

    private func readBackupPlist(_ name: FileName, bundle: FilePath, into record: inout BundleRecord) -> [String: PlistValue]? {
        let relative = FilePath(name)
        guard let (bytes, status) = readFile(bundle.appending(relative), limit: Self.backupPlistLimit, label: name.string, into: &record) else { return nil }
        record.stamps.append(FileStamp(path: relative, changeTime: status.changeTime, size: status.size, inode: status.inode))
        do {
            let document = try PropertyListReader.read(bytes)
            guard case let .dictionary(dictionary) = document.value else {
                record.errors.append("\(name): the root is a \(document.value.typeName), not a dictionary")
                return nil
            }
            return dictionary
        } catch {
            record.errors.append("\(name): \(error)")
            return nil
        }
    }
}
