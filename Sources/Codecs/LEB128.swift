/// LEB128: seven bits a byte, low first, the high bit set on all but the last (the catalogue's
/// Launch Services lists and the applications' packed claims).
public enum LEB128 {
    public static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Why a value could not be read.
    public enum ReadError: Error, Equatable {
        /// The bytes end inside the value (a reader of a window may read more and try again).
        case truncated
        /// More than nine bytes: no value this format writes, so the bytes are damaged.
        case overlong
    }

    /// The value at `offset` in `bytes`, moving `offset` past it. At most nine bytes (63 bits) are
    /// read; `offset` is left alone when the value cannot be read. Inlinable: lists read a few per entry.
    @inlinable public static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws(ReadError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var at = offset
        while true {
            guard at < bytes.count else { throw .truncated }
            guard shift < 63 else { throw .overlong }
            let next = bytes[at]
            at += 1
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 {
                offset = at
                return value
            }
            shift += 7
        }
    }
}
