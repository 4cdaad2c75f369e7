/// Builds UTF-8 text in a byte buffer: much cheaper than appending to a `String` piece by piece,
/// for the JSON (`JSONWriter`) and stamp columns written for every catalogued bundle.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func append(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    public mutating func append(_ byte: UInt8) { bytes.append(byte) }

    public mutating func append(_ utf8: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: utf8) }

    public mutating func append(raw string: String) {
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func append(_ value: Int64) {
        if value == 0 { bytes.append(0x30); return }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                     UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            let digitBytes = buffer.bindMemory(to: UInt8.self)
            while magnitude > 0 {
                digitBytes[count] = UInt8(magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digitBytes[index]) }
        }
    }

    public mutating func append(_ value: UInt64) {
        if value <= UInt64(Int64.max) { append(Int64(value)) } else { append(raw: String(value)) }
    }
}
