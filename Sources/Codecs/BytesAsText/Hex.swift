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
        text.utf8.withContiguousStorageIfAvailable { bytes(digits: $0) } ?? Array(text.utf8).withUnsafeBufferPointer { bytes(digits: $0) }
    }

    /// The same, read where the digits lie: PostgreSQL's bytea text of a page of 200 records is about
    /// a megabyte of hex. A table, not a switch per digit, read once per call (a static's every use
    /// in the loop would be a lazy-initialisation check).
    public static func bytes(digits: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var valid = true
        let bytes = values.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: digits.count / 2) { buffer, initialized in
                for index in 0..<digits.count / 2 {
                    let high = table[Int(digits[2 * index])], low = table[Int(digits[2 * index + 1])]
                    guard high | low < 0x10 else { valid = false; return }
                    buffer[index] = high << 4 | low
                    initialized = index + 1
                }
            }
        }
        return valid ? bytes : nil
    }

    /// Each byte's value as a hex digit, 0xFF for what is not one.
    private static let values: [UInt8] = (0...255).map { value(UInt8($0)) ?? 0xFF }

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
