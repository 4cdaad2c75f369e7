/// The decoding to UTF-8 bytes, what the property-list parsers read: valid UTF-8 is passed on as it
/// is (no copy), and UTF-16 is transcoded in one pass. Decoding to a `String` and copying its UTF-8
/// out again took a third of reading an Info file, and the standard library's UTF-16 decoding is its
/// slow generic path.
extension TextDecoding {
    public static func decodeToUTF8(_ bytes: [UInt8]) -> (utf8: [UInt8], encoding: TextEncoding) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            let rest = bytes[3...]
            return (isValidUTF8(rest) ? Array(rest) : Array(decodeLegacy(rest).text.utf8), .utf8WithBOM)
        }
        if bytes.starts(with: [0xFE, 0xFF]) { return (utf8FromUTF16(bytes[2...], bigEndian: true), .utf16BigEndian) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (utf8FromUTF16(bytes[2...], bigEndian: false), .utf16LittleEndian) }
        if let bigEndian = unmarkedUTF16(bytes) {
            return (utf8FromUTF16(bytes[...], bigEndian: bigEndian), bigEndian ? .utf16BigEndian : .utf16LittleEndian)
        }
        if isValidUTF8(bytes[...]) { return (bytes, .utf8) }
        let legacy = decodeLegacy(bytes[...])
        return (Array(legacy.text.utf8), legacy.encoding)
    }

    /// ASCII is checked eight bytes at a time; anything else is left to the standard library.
    static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        let ascii = bytes.withUnsafeBytes { raw -> Bool in
            var index = 0
            var high: UInt64 = 0
            while index + 8 <= raw.count {
                high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                high |= UInt64(raw[index])
                index += 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }
        return ascii || String(validating: bytes, as: UTF8.self) != nil
    }

    /// UTF-16 to UTF-8, an unpaired surrogate becoming U+FFFD and a trailing odd byte dropped, as
    /// `String(decoding:as: UTF16.self)` does.
    static func utf8FromUTF16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        bytes.withUnsafeBufferPointer { input in
            let count = input.count / 2
            func unit(_ index: Int) -> UInt32 {
                let first = UInt32(input[2 * index]), second = UInt32(input[2 * index + 1])
                return bigEndian ? first << 8 | second : second << 8 | first
            }
            var index = 0
            while index < count {
                var scalar = unit(index)
                index += 1
                if scalar >= 0xD800 && scalar <= 0xDFFF {
                    if scalar <= 0xDBFF, index < count, case let low = unit(index), low >= 0xDC00 && low <= 0xDFFF {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        index += 1
                    } else {
                        scalar = 0xFFFD
                    }
                }
                switch scalar {
                case ..<0x80:
                    output.append(UInt8(scalar))
                case ..<0x800:
                    output.append(UInt8(0xC0 | scalar >> 6))
                    output.append(UInt8(0x80 | scalar & 0x3F))
                case ..<0x10000:
                    output.append(UInt8(0xE0 | scalar >> 12))
                    output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                    output.append(UInt8(0x80 | scalar & 0x3F))
                default:
                    output.append(UInt8(0xF0 | scalar >> 18))
                    output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                    output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                    output.append(UInt8(0x80 | scalar & 0x3F))
                }
            }
        }
        return output
    }
}
