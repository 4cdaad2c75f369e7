/// Finder info in each of the forms BUNDLES.md rule 4 lists, for fixtures.
public enum FinderInfoBlobs {
    /// A 32-byte FinderInfo record with the given finderFlags bytes (`fi[8]`, `fi[9]`).
    public static func record(flags8: UInt8, flags9: UInt8 = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes[8] = flags8
        bytes[9] = flags9
        return bytes
    }

    /// An AppleDouble v2 file or blob holding the record as entry 9 at `finderInfoOffset`, after
    /// other entries, as Netatalk (offset 86 or 122) and macOS (offset 50) write it.
    public static func appleDouble(_ finderInfo: [UInt8], finderInfoOffset: Int = 82) -> [UInt8] {
        precondition(finderInfoOffset >= 26 + 2 * 12)
        var blob: [UInt8] = [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00]
        blob += Array("Netatalk        ".utf8) // 16 bytes of filler
        blob += [0x00, 0x02]                   // two entries
        blob += be32(2) + be32(UInt32(finderInfoOffset + 32)) + be32(0) // an empty resource fork after it
        blob += be32(9) + be32(UInt32(finderInfoOffset)) + be32(32)
        blob += [UInt8](repeating: 0, count: finderInfoOffset - blob.count)
        blob += finderInfo
        return blob
    }

    /// Samba's AfpInfo record: "AFP\0", version, file id, backup date, FinderInfo, ProDOS info,
    /// padding, and the trailing NUL Samba's stream attribute carries.
    public static func afpInfo(_ finderInfo: [UInt8], trailingByte: Bool = true) -> [UInt8] {
        var blob: [UInt8] = [0x41, 0x46, 0x50, 0x00] + be32(0x0001_0000) + be32(0) + be32(0x8000_0000)
        blob += finderInfo
        blob += [UInt8](repeating: 0, count: 12)
        if trailingByte { blob.append(0) }
        return blob
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
