/// Lower-case hexadecimal, for UUIDs (rule 25) and for bytes sent as text (PostgreSQL's bytea).
public enum Hex {
    public static func digit(_ value: UInt8, uppercase: Bool) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }

    public static func string(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends two lower-case digits per byte.
    public static func append(_ bytes: some Collection<UInt8>, to text: inout [UInt8]) {
        text.reserveCapacity(text.count + bytes.count * 2)
        for byte in bytes {
            text.append(digit(byte >> 4, uppercase: false))
            text.append(digit(byte & 15, uppercase: false))
        }
    }

    /// The bytes of an even run of hex digits (either case); nil for anything else.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
    }

    /// The value of one ASCII hex digit (0 for anything else; callers check digits first).
    static func value(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
