/// Where a directory's or file's Finder info was found (BUNDLES.md rule 4), in the order looked at.
public enum FinderInfoSource: String, Sendable, Codable, CaseIterable {
    /// Linux's hfsplus driver.
    case hfsPlusAttribute = "osx.com.apple.FinderInfo"
    /// `rsync -X` from a Mac.
    case userAttribute = "user.com.apple.FinderInfo"
    /// Netatalk and Samba's default: an AppleDouble v2 blob.
    case netatalkMetadata = "user.org.netatalk.Metadata"
    /// Samba `fruit:metadata=stream`: an AfpInfo record.
    case sambaStream = "user.DosStream.AFP_AfpInfo:$DATA"
    case sambaAfpInfo = "user.AFP_AfpInfo"
    /// An AppleDouble `._name` file beside the item.
    case appleDoubleSidecar = "._"

    /// The extended-attribute sources, in priority order.
    public static let attributeSources: [FinderInfoSource] = [
        .hfsPlusAttribute, .userAttribute, .netatalkMetadata, .sambaStream, .sambaAfpInfo,
    ]
}

/// The 32-byte FinderInfo record, and the flags bundlefs reads from it.
public struct FinderInfo: Sendable, Equatable {
    public let bytes: [UInt8]
    public let source: FinderInfoSource

    /// Takes the first 32 bytes; nil when there are fewer.
    public init?(bytes: some Collection<UInt8>, source: FinderInfoSource) {
        guard bytes.count >= 32 else { return nil }
        self.bytes = Array(bytes.prefix(32))
        self.source = source
    }

    /// kHasBundle: the Finder shows the folder as a package.
    public var hasBundleBit: Bool { bytes[8] & 0x20 != 0 }
    /// kIsInvisible.
    public var isInvisible: Bool { bytes[8] & 0x40 != 0 }
    /// kExtensionHidden (in the extended Finder flags' first byte for folders and files alike).
    public var hasHiddenExtension: Bool { bytes[9] & 0x10 != 0 }
    /// The big-endian finderFlags word.
    public var finderFlags: UInt16 { UInt16(bytes[8]) << 8 | UInt16(bytes[9]) }

    /// Decodes an extended attribute's value according to where it came from; nil when the blob is
    /// short or malformed (it then carries no flags, and the next place is looked at).
    public static func decode(attribute value: [UInt8], source: FinderInfoSource) -> FinderInfo? {
        switch source {
        case .hfsPlusAttribute, .userAttribute:
            return FinderInfo(bytes: value, source: source)
        case .netatalkMetadata, .appleDoubleSidecar:
            return decodeAppleDouble(value, source: source)
        case .sambaStream, .sambaAfpInfo:
            // "AFP\0", version, file id, backup date, then FinderInfo at 16; 60 bytes, sometimes 61.
            guard value.count >= 48, value.starts(with: [0x41, 0x46, 0x50, 0x00]) else { return nil }
            return FinderInfo(bytes: value[16..<48], source: source)
        }
    }

    /// The Finder Info entry of a whole AppleDouble blob (`appleDoubleFinderInfoOffset`).
    public static func decodeAppleDouble(_ blob: [UInt8], source: FinderInfoSource = .appleDoubleSidecar) -> FinderInfo? {
        guard let offset = appleDoubleFinderInfoOffset(header: blob, size: blob.count) else { return nil }
        return FinderInfo(bytes: blob[offset..<(offset + 32)], source: source)
    }

    /// Where entry 9 (Finder Info) starts in an AppleDouble file of `size` bytes that begins with
    /// `header`, found by walking its entry table: the offset differs between writers (old
    /// Netatalk 86, new 122, macOS 50), and macOS's entry holds the item's extended attributes
    /// after the 32 bytes. Nil for a wrong magic, no entry 9 in the table `header` holds, or an
    /// entry shorter than 32 bytes or running past the end.
    static func appleDoubleFinderInfoOffset(header: [UInt8], size: Int) -> Int? {
        guard header.count >= 26, header.starts(with: [0x00, 0x05, 0x16, 0x07]) else { return nil }
        let entryCount = Int(header[24]) << 8 | Int(header[25])
        for entry in 0..<entryCount {
            let start = 26 + entry * 12
            guard start + 12 <= header.count else { return nil }
            let id = readUInt32(header, start)
            guard id == 9 else { continue }
            let offset = Int(readUInt32(header, start + 4))
            let length = Int(readUInt32(header, start + 8))
            guard length >= 32, offset <= size, length <= size - offset else { return nil }
            return offset
        }
        return nil
    }

    /// kHasBundle, kIsInvisible and kExtensionHidden in the finderFlags word.
    public static let hasBundleFlag: UInt16 = 0x2000
    public static let extensionHiddenFlag: UInt16 = 0x0010

    /// Whether finderFlags (if any were found) hide the extension (rule 17).
    public static func isExtensionHidden(_ finderFlags: UInt16?) -> Bool { (finderFlags ?? 0) & extensionHiddenFlag != 0 }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
