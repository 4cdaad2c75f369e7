public import SystemCalls

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

    /// Finds entry 9 (Finder Info) in an AppleDouble header by walking its entry table; the offset
    /// differs between writers (old Netatalk 86, new 122, macOS 50).
    public static func decodeAppleDouble(_ blob: [UInt8], source: FinderInfoSource = .appleDoubleSidecar) -> FinderInfo? {
        guard blob.count >= 26, blob.starts(with: [0x00, 0x05, 0x16, 0x07]) else { return nil }
        let entryCount = Int(blob[24]) << 8 | Int(blob[25])
        for entry in 0..<entryCount {
            let start = 26 + entry * 12
            guard start + 12 <= blob.count else { return nil }
            let id = readUInt32(blob, start)
            guard id == 9 else { continue }
            let offset = Int(readUInt32(blob, start + 4))
            let length = Int(readUInt32(blob, start + 8))
            guard length >= 32, offset <= blob.count, length <= blob.count - offset else { return nil }
            return FinderInfo(bytes: blob[offset..<(offset + 32)], source: source)
        }
        return nil
    }

    /// kHasBundle, kIsInvisible and kExtensionHidden in the finderFlags word.
    public static let hasBundleFlag: UInt16 = 0x2000
    public static let extensionHiddenFlag: UInt16 = 0x0010

    /// Whether finderFlags (if any were found) hide the extension (rule 17).
    public static func isExtensionHidden(_ finderFlags: UInt16?) -> Bool { (finderFlags ?? 0) & extensionHiddenFlag != 0 }

    /// Rule 4 for any item by path (a file, a folder that is not catalogued): the Finder flags
    /// from the first place that has well-formed Finder info, the extended attributes first
    /// (not of a symlink: Linux keeps no user attributes on links), then the AppleDouble file
    /// `sidecar` when there is one.
    public static func flags(ofItemAt path: FilePath, type: FileType, sidecar: FilePath?) -> UInt16? {
        if type != .symlink, let names = try? ExtendedAttributes.names(atPath: path), !names.isEmpty {
            for source in FinderInfoSource.attributeSources where names.contains(source.rawValue) {
                if let value = try? ExtendedAttributes.value(source.rawValue, atPath: path),
                   let info = decode(attribute: value, source: source) {
                    return info.finderFlags
                }
            }
        }
        guard let sidecar, let file = try? Descriptor.open(sidecar, flags: Descriptor.probeRead | O_NOFOLLOW_IF(true)),
              (try? file.status().type) == .regular, let header = try? file.read(at: 0, count: 4096)
        else { return nil }
        return decodeAppleDouble(header)?.finderFlags
    }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
