public import SystemCalls

/// One member of an archive as its header describes it. The path is data, never a path on disk:
/// it is made relative (a leading `/` or `./` dropped) and a member whose path climbs out with
/// `..` is not listed at all (see `ArchiveReader`).
public struct ArchiveMember: Sendable, Equatable {
    public var path: FilePath
    public var type: FileType
    /// Uncompressed size, as the header says (0 when it does not).
    public var size: Int64
    /// Whether the header says the size (a zip written to a stream may not).
    public var sizeIsKnown: Bool
    public var permissions: UInt32
    public var modificationTime: Int64
    /// A symlink's target, as stored.
    public var linkTarget: FilePath?
    public var isEncrypted: Bool

    public init(path: FilePath, type: FileType, size: Int64 = 0, permissions: UInt32 = 0o644, modificationTime: Int64 = 0,
                linkTarget: FilePath? = nil, isEncrypted: Bool = false, sizeIsKnown: Bool = false) {
        self.path = path
        self.type = type
        self.size = size
        self.sizeIsKnown = sizeIsKnown
        self.permissions = permissions
        self.modificationTime = modificationTime
        self.linkTarget = linkTarget
        self.isEncrypted = isEncrypted
    }

    /// Whether a member name says only "here" (`.`, `./`, `/`): the archive's top, not a member.
    static func isTop(_ raw: [UInt8]) -> Bool {
        raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).allSatisfy { $0.elementsEqual([UInt8(ascii: ".")]) }
    }

    /// A member path made relative and checked: nil when it climbs out (`..`) or is empty.
    static func normalized(_ raw: [UInt8]) -> FilePath? {
        var components: [FileName] = []
        for part in raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            let name = FileName(bytes: Array(part))
            if name == "." { continue }
            if name == ".." { return nil }
            components.append(name)
        }
        guard !components.isEmpty else { return nil }
        return components.reduce(FilePath.here) { $0.appending($1) }
    }
}
