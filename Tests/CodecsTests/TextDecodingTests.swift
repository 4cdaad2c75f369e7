@testable import Codecs
import Fixtures
import Testing

/// `TextDecoding.decodeToUTF8` (what the property-list parsers read) decodes exactly as the standard
/// library's `String` decoding does (`viaString`, how bundlefs decoded text before): the same text
/// and the same encoding, for BOMs, UTF-16 with and without one (surrogate pairs, lone surrogates,
/// a trailing odd byte), UTF-8 and the legacy 8-bit encodings.
@Suite struct TextDecodingTests {
    func viaString(_ bytes: [UInt8]) -> (text: String, encoding: TextEncoding) {
        func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
            let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { index in
                let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
                return bigEndian ? first << 8 | second : second << 8 | first
            }
            return String(decoding: units, as: UTF16.self)
        }
        func utf8OrLegacy(_ bytes: ArraySlice<UInt8>) -> (text: String, encoding: TextEncoding) {
            String(validating: bytes, as: UTF8.self).map { ($0, .utf8) } ?? TextDecoding.decodeLegacy(bytes)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (utf8OrLegacy(bytes.dropFirst(3)).text, .utf8WithBOM) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (utf16(bytes.dropFirst(2), bigEndian: true), .utf16BigEndian) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (utf16(bytes.dropFirst(2), bigEndian: false), .utf16LittleEndian) }
        if let bigEndian = TextDecoding.unmarkedUTF16(bytes) {
            return (utf16(bytes[...], bigEndian: bigEndian), bigEndian ? .utf16BigEndian : .utf16LittleEndian)
        }
        return utf8OrLegacy(bytes[...])
    }

    func expectSame(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let viaString = viaString(bytes)
        let direct = TextDecoding.decodeToUTF8(bytes)
        #expect(direct.utf8 == Array(viaString.text.utf8) && direct.encoding == viaString.encoding, "\(bytes)", sourceLocation: sourceLocation)
    }

    @Test func examples() {
        expectSame(Array("plain ASCII, longer than eight bytes".utf8))
        expectSame(Array("caf\u{E9} na\u{EF}ve".utf8))
        expectSame([0x63, 0x61, 0x66, 0xE9])  // Latin-1
        expectSame([0xEF, 0xBB, 0xBF, 0x61, 0xE9])  // a BOM, then not UTF-8
        expectSame([0xFF, 0xFE, 0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8, 0x61, 0x00, 0x00, 0xDC, 0x62])  // a pair, two lone surrogates, an odd byte
        expectSame([0xFE, 0xFF, 0x00, 0xE9, 0x20, 0xAC, 0xD8, 0x3D])  // big-endian, ending in a high surrogate
        expectSame([0x61, 0x00, 0x62, 0x00, 0x63, 0x00, 0x64, 0x00])  // UTF-16LE without a BOM
        expectSame([])
        #expect(TextDecoding.decodeToUTF8([0xFF, 0xFE, 0x00, 0xD8, 0x61, 0x00]).utf8 == [0xEF, 0xBF, 0xBD, 0x61])
    }

    @Test func randomTextDecodesAsTheStringDoes() {
        var generator = SeededGenerator(seed: 1616)
        let starts: [[UInt8]] = [[], [], [0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
        let pieces: [[UInt8]] = [Array("key = value;".utf8), Array("\u{E9}\u{20AC}\u{1F600}".utf8), [0x00], [0x41, 0x00], [0x00, 0x41],
                                 [0x3D, 0xD8], [0x00, 0xDE], [0xD8, 0x3D], [0xDE, 0x00], [0xE9], [0x80], [0xFF], [0xC3]]
        for _ in 0..<4_000 {
            var bytes = starts[Int(generator.next() % UInt64(starts.count))]
            for _ in 0..<Int(generator.next() % 10) { bytes += pieces[Int(generator.next() % UInt64(pieces.count))] }
            expectSame(bytes)
        }
    }
}
