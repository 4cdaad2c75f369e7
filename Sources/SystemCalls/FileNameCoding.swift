#if canImport(Glibc)
import Glibc
#endif

// File names on Linux are bytes; Swift strings are Unicode. To keep every name lossless while still
// using `String` everywhere (JSON, SQLite TEXT, the command line), each byte that is not part of
// valid UTF-8 is carried as one scalar of a private-use block, U+10FF00 + (byte - 0x80). Valid UTF-8
// that happens to encode one of those scalars is escaped byte by byte too, so the mapping is a
// bijection: `FileNameCoding.bytes(of: FileNameCoding.string(from: b)) == b` for every byte string.

public enum FileNameCoding {
    static let escapeBase: UInt32 = 0x10FF00

    /// The string that stands for these file-system bytes.
    public static func string<C: Collection>(from bytes: C) -> String where C.Element == UInt8 {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        let array = Array(bytes)
        if let valid = String(validating: array, as: UTF8.self), !containsEscapeRange(array) {
            return valid
        }
        return decodeSlow(array)
    }

    /// The string for a NUL-terminated C name, e.g. `d_name`.
    public static func string(cString: UnsafePointer<CChar>) -> String {
        let length = strlenPortable(cString)
        return cString.withMemoryRebound(to: UInt8.self, capacity: length) {
            string(from: UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The file-system bytes a string stands for (no terminating NUL).
    public static func bytes(of string: String) -> [UInt8] {
        var utf8 = Array(string.utf8)
        if !utf8.contains(0xF4) { return utf8 }
        utf8.removeAll(keepingCapacity: true)
        for scalar in string.unicodeScalars {
            let value = scalar.value
            if value >= escapeBase && value < escapeBase + 0x80 {
                utf8.append(UInt8(value - escapeBase + 0x80))
            } else {
                utf8.append(contentsOf: Array(String(scalar).utf8))
            }
        }
        return utf8
    }

    /// Calls `body` with a NUL-terminated C string of the file-system bytes. Fails with EINVAL for a
    /// string that contains NUL, which no file name can.
    public static func withCString<R>(_ string: String, _ body: (UnsafePointer<CChar>) throws -> R) throws -> R {
        // Most names carry no escapes: hand the string's own UTF-8 over without copying it.
        let plain = ExactBytes.withBytes(string) { utf8 in
            utf8.isEmpty || (memchr(utf8.baseAddress!, 0xF4, utf8.count) == nil && memchr(utf8.baseAddress!, 0, utf8.count) == nil)
        }
        if plain { return try string.withCString(body) }
        var bytes = bytes(of: string)
        if bytes.contains(0) { throw SystemError(errno: EINVAL_, operation: "path", path: string) }
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { try body($0) }
        }
    }

    /// Whether the string carries escaped bytes, i.e. names something that is not valid UTF-8.
    public static func hasEscapes(_ string: String) -> Bool {
        guard string.utf8.contains(0xF4) else { return false }
        return string.unicodeScalars.contains { $0.value >= escapeBase && $0.value < escapeBase + 0x80 }
    }

    // U+10FF00..U+10FF7F encode as F4 8F BC 80 ... F4 8F BD BF.
    private static func containsEscapeRange(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for i in 0...(bytes.count - 4) where bytes[i] == 0xF4 && bytes[i + 1] == 0x8F {
            if bytes[i + 2] == 0xBC || bytes[i + 2] == 0xBD { return true }
        }
        return false
    }

    private static func decodeSlow(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeScalar(bytes, at: index),
               !(scalar.value >= escapeBase && scalar.value < escapeBase + 0x80) {
                scalars.append(scalar)
                index += length
            } else {
                let byte = bytes[index]
                let value = byte < 0x80 ? UInt32(byte) : escapeBase + UInt32(byte - 0x80)
                scalars.append(Unicode.Scalar(value)!)
                index += 1
            }
        }
        return String(scalars)
    }

    /// One well-formed UTF-8 scalar at `index` (shortest form, no surrogates), or nil.
    private static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        let minimum: UInt32 = [0, 0, 0x80, 0x800, 0x10000][length]
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    private static func strlenPortable(_ pointer: UnsafePointer<CChar>) -> Int {
        var length = 0
        while pointer[length] != 0 { length += 1 }
        return length
    }
}
