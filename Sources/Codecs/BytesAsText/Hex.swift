/// Bytes as hexadecimal digits, two per byte: lower-case for UUIDs as lookups compare them (rule 25),
/// PostgreSQL's bytea, property-list data and escapes; upper-case where a form asks for it (a
/// canonical UUID, percent-encoding in a libpq URI).
public enum Hex {
    public static func digit(_ value: UInt8, uppercase: Bool = false) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }

    /// Appends the two digits of a byte.
    public static func append(_ byte: UInt8, uppercase: Bool = false, to text: inout [UInt8]) {
        text.append(digit(byte >> 4, uppercase: uppercase))
        text.append(digit(byte & 15, uppercase: uppercase))
    }

    public static func append(_ bytes: some Collection<UInt8>, uppercase: Bool = false, to text: inout [UInt8]) {
        text.reserveCapacity(text.count + bytes.count * 2)
        for byte in bytes { append(byte, uppercase: uppercase, to: &text) }
    }

    public static func string(_ bytes: some Collection<UInt8>, uppercase: Bool = false) -> String {
        var text: [UInt8] = []
        append(bytes, uppercase: uppercase, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of an even run of hex digits (either case); nil for anything else.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The value of one ASCII hex digit (either case); nil for anything else.
    public static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
