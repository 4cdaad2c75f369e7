/// Percent-encoding (RFC 3986, `%` and two hex digits per byte). Which bytes are escaped is the
/// caller's: a file URI for SQLite and a libpq connection URI escape different sets.
public enum PercentEncoding {
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool, escaping: (UInt8) -> Bool) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            if escaping(byte) {
                text.append(UInt8(ascii: "%"))
                Hex.append(byte, uppercase: uppercase, to: &text)
            } else {
                text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The text with its escapes decoded; nil when a `%` is not followed by two hex digits or the
    /// bytes are not UTF-8.
    public static func decode(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(Hex.value), let low = iterator.next().flatMap(Hex.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
