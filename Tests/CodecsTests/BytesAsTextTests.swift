import Codecs
import Fixtures
import Testing

/// Percent-encoding and hex read back (what the symbol server's router decodes a request's target
/// with): escapes that are cut short or not hex, and bytes that are not UTF-8, are refused; nothing
/// else is changed on the way.
@Suite struct BytesAsTextTests {
    @Test func percentEscapesAreDecoded() {
        #expect(PercentEncoding.decode("") == "")
        #expect(PercentEncoding.decode("plain-text_1.2~") == "plain-text_1.2~")
        #expect(PercentEncoding.decode("%41%62%2f%2F") == "Ab//")
        #expect(PercentEncoding.decode("%C3%A9t%c3%a9") == "été")
        // Only `%` escapes: `+` is a plus sign, and a decoded `%` starts no second escape.
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("%2541") == "%41")
        #expect(PercentEncoding.decode("%00") == "\u{0}")
    }

    @Test(arguments: ["%", "%4", "abc%", "abc%4", "%G0", "%0g", "%%41", "% 41", "%-1", "%C3", "%FF", "%C3%28", "%ED%A0%80"])
    func malformedEscapesAreRefused(_ text: String) {
        #expect(PercentEncoding.decode(text) == nil)
    }

    /// Random bytes, escaped in random places: decoding gives them back, or nil exactly when they
    /// are not UTF-8; cutting the text inside an escape is refused.
    @Test func randomBytesComeBack() {
        var generator = SeededGenerator(seed: 3986)
        for _ in 0..<2_000 {
            let bytes = (0..<Int(generator.next() % 12)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let escaped = Set(bytes.filter { _ in generator.next() % 2 == 0 })
            let text = PercentEncoding.encode(bytes, uppercase: generator.next() % 2 == 0) { escaped.contains($0) || $0 >= 0x80 || $0 == UInt8(ascii: "%") }
            #expect(PercentEncoding.decode(text) == String(validating: bytes, as: UTF8.self), "\(bytes)")
            if let cut = text.utf8.lastIndex(of: UInt8(ascii: "%")) {
                #expect(PercentEncoding.decode(String(text[..<text.utf8.index(after: cut)])) == nil)
            }
        }
    }

    @Test func hexDigitsAreRead() {
        #expect(Hex.bytes("") == [])
        #expect(Hex.bytes("00ff7F80AbcD") == [0x00, 0xFF, 0x7F, 0x80, 0xAB, 0xCD])
        #expect(Hex.bytes(Hex.string((0...255).map(UInt8.init))) == (0...255).map(UInt8.init))
        for byte in UInt8.min...UInt8.max {
            let expected: UInt8? = switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
            default: nil
            }
            #expect(Hex.value(byte) == expected, "\(byte)")
        }
    }

    @Test(arguments: ["0", "abc", "zz", "0g", "g0", " 00", "00 ", "-1", "0x00", "éé", "é1", "١٢"])
    func malformedHexIsRefused(_ text: String) {
        #expect(Hex.bytes(text) == nil)
    }
}
