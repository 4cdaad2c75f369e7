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
}
