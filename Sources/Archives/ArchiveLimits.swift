/// What reading one archive may cost (BUNDLES.md rule 27): past any limit the read stops and the
/// archive is catalogued with the error, so a zip bomb, a million members or a slow disk cannot
/// hold up the rest of the index by more than this.
public struct ArchiveLimits: Sendable {
    /// Members listed at most, counting the directories their names imply (a zip need not list
    /// them): what the tree of members holds, not only what the headers say.
    public var members: Int
    /// Bytes decompressed at most, whether read or skipped (a `.tar.gz` is decompressed to be listed).
    public var uncompressedBytes: Int64
    /// Decompressed bytes per compressed byte, above which the archive is a bomb. Checked once a
    /// megabyte has been decompressed: small members compress well without harm.
    public var compressionRatio: Int64
    /// Wall-clock seconds per archive.
    public var seconds: Double
    /// One member's bytes read at most (an Info file, a strings file).
    public var memberBytes: Int
    /// A member name's bytes at most: macOS's PATH_MAX, so nothing a Mac could extract is lost,
    /// and a name 2,000 directories deep is not walked.
    public var nameBytes: Int

    public init(members: Int = 100_000, uncompressedBytes: Int64 = 2 << 30, compressionRatio: Int64 = 100,
                seconds: Double = 30, memberBytes: Int = 8 << 20, nameBytes: Int = 1024) {
        self.members = members
        self.uncompressedBytes = uncompressedBytes
        self.compressionRatio = compressionRatio
        self.seconds = seconds
        self.memberBytes = memberBytes
        self.nameBytes = nameBytes
    }

    public static let standard = ArchiveLimits()
}

/// Why an archive could not be read (whole or in part): one line for its errors.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
