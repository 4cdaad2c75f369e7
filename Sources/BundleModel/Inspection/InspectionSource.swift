public import SystemCalls

/// Where an inspection reads a tree: the file system beneath a scan root (`ResolutionScope`), or
/// the members of an archive (the Archives module). The rules of BUNDLES.md only list directories,
/// ask what a path is, and read files, so they run unchanged over either.
public protocol InspectionSource {
    /// Where reads are confined, for messages.
    var confinement: FilePath { get }
    /// Whether directories carry extended attributes (Finder info) worth asking for.
    var hasExtendedAttributes: Bool { get }
    /// A directory's entries and its status; nil when it cannot be listed.
    func list(_ relative: FilePath, recorder: ListingRecorder?) -> (entries: [DirectoryEntry], status: FileStatus)?
    /// What a path leads to, following symlinks that stay inside; nil when nothing does.
    func status(_ relative: FilePath) -> FileStatus?
    /// What an entry itself is (a symlink as a symlink), for listings without types.
    func entryStatus(_ name: FileName, in relative: FilePath) -> FileStatus?
    func readLink(_ name: FileName, in relative: FilePath) -> FilePath?
    /// A whole regular file, at most `limit` bytes (`BoundedReadError` beyond).
    func readRegularFile(_ relative: FilePath, limit: Int, knownRegular: Bool) throws -> (bytes: [UInt8], status: FileStatus)
    func readPrefix(_ relative: FilePath, count: Int) throws -> [UInt8]
    /// An executable's or DWARF file's headers (rule 23).
    func readBinary(_ relative: FilePath) throws -> (result: BinaryReader.Result, status: FileStatus)
    /// The regular files directly in a directory, and the bytes they take on disk (allocated
    /// blocks), with the directory's status; nil when it cannot be listed or the source cannot say.
    /// The listing goes to `recorder`, as `list`'s does, so that a walk does not list it again.
    func filesUsage(in relative: FilePath, recorder: ListingRecorder?) -> (files: Int, allocated: UInt64, status: FileStatus)?
}

extension InspectionSource {
    /// An archive's members take no blocks of their own.
    public func filesUsage(in relative: FilePath, recorder: ListingRecorder?) -> (files: Int, allocated: UInt64, status: FileStatus)? { nil }
}

extension ResolutionScope: InspectionSource {
    var confinement: FilePath { root.path }
    var hasExtendedAttributes: Bool { true }

    func entryStatus(_ name: FileName, in relative: FilePath) -> FileStatus? {
        try? open(relative, flags: O_PATH_DIRECTORY).status(of: name)
    }

    func readLink(_ name: FileName, in relative: FilePath) -> FilePath? {
        try? open(relative, flags: O_PATH_DIRECTORY).readLink(name)
    }

    /// One listing and one `fstatat` per entry: no file is opened or read. A listing's types
    /// (`d_type`) pass over directories and links without a stat.
    func filesUsage(in relative: FilePath, recorder: ListingRecorder?) -> (files: Int, allocated: UInt64, status: FileStatus)? {
        guard let (entries, status) = list(relative, recorder: recorder),
              let directory = try? open(relative, flags: Descriptor.directoryNoFollowFinal) else { return nil }
        var files = 0
        var allocated: UInt64 = 0
        for entry in entries where entry.type == .regular || entry.type == .unknown {
            guard let file = try? directory.status(of: entry.name), file.type == .regular else { continue }
            files += 1
            // Saturating: a network or FUSE file system may report any block count.
            let (bytes, overflow) = UInt64(max(0, file.blocks)).multipliedReportingOverflow(by: 512)
            let (sum, carry) = allocated.addingReportingOverflow(bytes)
            allocated = overflow || carry ? .max : sum
        }
        return (files, allocated, status)
    }

    func readBinary(_ relative: FilePath) throws -> (result: BinaryReader.Result, status: FileStatus) {
        // Where the links led, as the kernel resolved them for this descriptor: the one path a
        // symbol store may later open, without following any link. Opened through no link at all
        // (most executables), that is the path asked for, and /proc need not be asked.
        let unlinked = relative.hasComponent(".") || relative.hasComponent("..") ? nil : try? openWithoutLinks(relative, flags: Descriptor.probeRead)
        let file = try unlinked ?? open(relative, flags: Descriptor.probeRead)
        let status = try file.status()
        guard status.type == .regular else { throw BoundedReadError.notRegularFile(path: absolute(relative).string, type: status.type) }
        var result = BinaryReader.read(FileByteSource(file, size: UInt64(max(0, status.size))), file: relative)
        result.openedPath = unlinked != nil ? relative : file.openedPath?.relative(to: root.path)
        return (result, status)
    }
}
