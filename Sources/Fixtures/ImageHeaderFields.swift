/// Where an image file declares its sizes, for the fuzzers to make them huge: the fields decoders
/// allocate by, which random byte flips rarely hit. Knows `.icns` lengths (and the members inside),
/// JPEG 2000 (JP2 box lengths, `ihdr`, the codestream's SIZ), PNG's IHDR and TIFF's IFD entries.
public enum ImageHeaderFields {
    public struct Field: Sendable, Equatable {
        public var offset: Int
        /// 2 or 4 bytes.
        public var width: Int
        public var bigEndian: Bool
    }

    /// The size fields of `bytes`, whatever format it is (none when it is none of these).
    public static func fields(of bytes: [UInt8]) -> [Field] {
        fields(of: bytes, in: 0..<bytes.count)
    }

    static func fields(of bytes: [UInt8], in range: Range<Int>) -> [Field] {
        let data = bytes[range]
        if data.starts(with: Array("icns".utf8)) { return icns(bytes, range) }
        if data.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20]) { return jp2(bytes, range) }
        if data.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return siz(range.lowerBound + 2, range) }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]), range.count >= 24 {
            return [Field(offset: range.lowerBound + 16, width: 4, bigEndian: true), Field(offset: range.lowerBound + 20, width: 4, bigEndian: true)]
        }
        if data.starts(with: [0x49, 0x49, 0x2A, 0x00]) || data.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return tiff(bytes, range) }
        return []
    }

    static func word(_ bytes: [UInt8], _ at: Int, bigEndian: Bool = true, width: Int = 4) -> Int {
        let slice = bytes[at..<at + width]
        return (bigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | Int($1) }
    }

    private static func icns(_ bytes: [UInt8], _ range: Range<Int>) -> [Field] {
        var fields = [Field(offset: range.lowerBound + 4, width: 4, bigEndian: true)]
        var offset = range.lowerBound + 8
        while offset + 8 <= range.upperBound {
            fields.append(Field(offset: offset + 4, width: 4, bigEndian: true))
            let length = word(bytes, offset + 4)
            guard length >= 8, offset + length <= range.upperBound else { break }
            fields += Self.fields(of: bytes, in: (offset + 8)..<(offset + length))
            offset += length
        }
        return fields
    }

    private static func jp2(_ bytes: [UInt8], _ range: Range<Int>) -> [Field] {
        var fields: [Field] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            fields.append(Field(offset: offset, width: 4, bigEndian: true))
            let length = word(bytes, offset), type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length >= 8, offset + length <= range.upperBound else { break }
            if type == "jp2h" { fields += jp2(bytes, (offset + 8)..<(offset + length)) }
            if type == "ihdr", length >= 22 {
                fields += [offset + 8, offset + 12].map { Field(offset: $0, width: 4, bigEndian: true) }
                fields.append(Field(offset: offset + 16, width: 2, bigEndian: true))
            }
            if type == "jp2c" { fields += Self.fields(of: bytes, in: (offset + 8)..<(offset + length)) }
            offset += length
        }
        return fields
    }

    /// SIZ at `marker` (its FF51): Lsiz, then the eight 32-bit grid fields, then Csiz.
    private static func siz(_ marker: Int, _ range: Range<Int>) -> [Field] {
        guard marker + 40 <= range.upperBound else { return [] }
        return [Field(offset: marker + 2, width: 2, bigEndian: true)]
            + (0..<8).map { Field(offset: marker + 6 + 4 * $0, width: 4, bigEndian: true) }
            + [Field(offset: marker + 38, width: 2, bigEndian: true)]
    }

    /// The first IFD's entries for width, length, bits, samples, rows per strip, tile width and length.
    private static func tiff(_ bytes: [UInt8], _ range: Range<Int>) -> [Field] {
        let big = bytes[range.lowerBound] == 0x4D
        guard range.count >= 8 else { return [] }
        let ifd = range.lowerBound + word(bytes, range.lowerBound + 4, bigEndian: big)
        guard ifd + 2 <= range.upperBound else { return [] }
        var fields: [Field] = []
        for index in 0..<word(bytes, ifd, bigEndian: big, width: 2) {
            let entry = ifd + 2 + 12 * index
            guard entry + 12 <= range.upperBound else { break }
            let tag = word(bytes, entry, bigEndian: big, width: 2), type = word(bytes, entry + 2, bigEndian: big, width: 2)
            guard [256, 257, 258, 277, 278, 322, 323].contains(tag) else { continue }
            fields.append(Field(offset: entry + 8, width: type == 3 ? 2 : 4, bigEndian: big))
        }
        return fields
    }

    /// PNG keeps a checksum over each chunk: every IHDR's (a PNG's own, an `.icns` member's) is made
    /// right again after a change, so that libpng reads the huge size rather than refusing the sum.
    public static func fixPNGChecksums(_ bytes: inout [UInt8]) {
        var start = 0
        while let found = bytes[start...].firstRange(of: Array("IHDR".utf8)) {
            let type = found.lowerBound
            start = found.upperBound
            guard type >= 4, type + 21 <= bytes.count, word(bytes, type - 4) == 13 else { continue }
            let sum = crc32(bytes[type..<(type + 17)])
            for index in 0..<4 { bytes[type + 17 + index] = UInt8(truncatingIfNeeded: sum >> (24 - 8 * UInt32(index))) }
        }
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
