/// Rows for `COPY … FROM STDIN (FORMAT binary)`: each value as its length and its bytes, so bytea
/// goes as it is (no hex for either side to make or parse) and text needs no escaping. The types
/// must be the columns' own: `int4` for `.int32`, `boolean`, `text`, `bytea`.
public struct PostgresCopyRows {
    let columns: Int
    var buffer: [UInt8]

    init(columns: Int) {
        self.columns = columns
        // Signature, flags, header extension length.
        buffer = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
        buffer.reserveCapacity(1 << 20)
    }

    public enum Value {
        /// Text; NUL, which PostgreSQL's text cannot hold, is left out.
        case text(String)
        case bytes([UInt8])
        case int32(Int32)
        case boolean(Bool)
        case null
    }

    public mutating func append(_ values: [Value]) {
        precondition(values.count == columns, "a COPY row has one value per column")
        appendInteger(UInt16(columns))
        for value in values {
            switch value {
            case .null: appendInteger(UInt32.max)
            case .int32(let number):
                appendInteger(UInt32(4))
                appendInteger(UInt32(bitPattern: number))
            case .boolean(let flag):
                appendInteger(UInt32(1))
                buffer.append(flag ? 1 : 0)
            case .bytes(let bytes):
                appendInteger(UInt32(bytes.count))
                buffer.append(contentsOf: bytes)
            case .text(var text):
                if text.utf8.contains(0) { text = String(decoding: text.utf8.filter { $0 != 0 }, as: UTF8.self) }
                appendInteger(UInt32(text.utf8.count))
                buffer.append(contentsOf: text.utf8)
            }
        }
    }

    /// The trailer: a field count of -1.
    mutating func finish() { appendInteger(UInt16.max) }

    private mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }
}
