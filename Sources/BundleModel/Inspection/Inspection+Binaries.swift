import SystemCalls

/// Reading the headers of a bundle's executable and of a dSYM's DWARF files during inspection
/// (rule 23). Each file read is stamped, so a rebuilt executable makes the bundle read again.
extension Inspection {
    /// A dSYM holds one DWARF file per image; more than this is not a dSYM Xcode made.
    static let maximumDWARFFiles = 64

    func readBinaries(bundle: FilePath, into record: inout BundleRecord) {
        guard settings.readsBinaries else { return }
        if let executable = record.executable, let relative = executable.relative(to: record.key) {
            readBinary(relative, bundle: bundle, isDWARF: false, into: &record)
        }
        guard record.lowercasedExtension == "dsym" else { return }
        let directory = FilePath("Contents/Resources/DWARF")
        guard let (entries, status) = root.list(bundle.appending(directory), recorder: recorder) else {
            record.errors.append("no DWARF files: \(directory)/ cannot be listed")
            return
        }
        record.stamps.append(FileStamp(path: directory, changeTime: status.changeTime, size: status.size, inode: status.inode))
        let files = entries.filter { $0.type == .regular || $0.type == .symlink || $0.type == .unknown }.map(\.name).sorted()
        if files.isEmpty { record.errors.append("no DWARF files in \(directory)/") }
        if files.count > Self.maximumDWARFFiles {
            record.errors.append("\(files.count) files in \(directory)/; the first \(Self.maximumDWARFFiles) are read")
        }
        for name in files.prefix(Self.maximumDWARFFiles) {
            readBinary(directory.appending(name), bundle: bundle, isDWARF: true, into: &record)
        }
    }

    private func readBinary(_ relative: FilePath, bundle: FilePath, isDWARF: Bool, into record: inout BundleRecord) {
        let label = relative.string
        let read: (result: BinaryReader.Result, status: FileStatus)
        do {
            read = try root.readBinary(bundle.appending(relative))
        } catch let error as BoundedReadError {
            if case let .notRegularFile(_, type) = error { record.errors.append("\(label): is a \(type), not a file; its headers are not read") }
            return
        } catch {
            record.errors.append("\(label): cannot be opened to read its headers: \(error)")
            return
        }
        let status = read.status
        record.stamps.append(FileStamp(path: relative, changeTime: status.changeTime, size: status.size, inode: status.inode))
        // The reader names the file as it was asked for: relative to the bundle, not to the root.
        let result = read.result
        // Served later only as read, and only inside its bundle (Docs/symbols.md, "Which file is served").
        let onDisk = result.openedPath.flatMap { $0.relative(to: bundle) }.flatMap { $0.isEmpty ? nil : BinarySlice.DiskFile(path: $0, status: status) }
        record.binaries += result.slices.map { slice in
            var slice = slice
            slice.file = relative
            slice.onDisk = onDisk
            return slice
        }
        for error in result.errors { record.errors.append("\(label): \(error)") }
        if result.isNotBinary && isDWARF { record.errors.append("\(label): is not a Mach-O file") }
    }
}
