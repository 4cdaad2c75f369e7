#if canImport(Glibc)
import Glibc
#endif

/// Equality, hashing and order of file names and paths by their bytes. Swift's `String` compares
/// by canonical equivalence, so `Résumé` in NFC and in NFD would be one key of a dictionary; to a
/// file system (and to the kernel's dentry cache) they are two names. The strings here carry bytes
/// as `FileNameCoding` describes: their UTF-8 is the file-system bytes, except that bytes which are
/// not valid UTF-8 are escaped. The coding is a bijection, so equal UTF-8 means equal bytes.
enum ExactBytes {
    static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    static func hash(_ string: String, into hasher: inout Hasher) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in string.utf8 { hasher.combine(byte) } }
        hasher.combine(string.utf8.count)
    }

    /// Byte order of the file-system bytes (what `LC_ALL=C ls` shows). Escaped bytes sort by the
    /// byte they stand for, not by their escape.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in precedesCoded(left, right) }
        }
        return ((fast ?? nil) ?? nil) ?? precedesRaw(a, b)
    }

    /// One pass over the coded bytes: where they first differ decides, unless that is inside a
    /// scalar led by 0xF4 (an escaped byte, or a scalar near U+10FFFF): then the raw bytes do.
    private static func precedesCoded(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool? {
        let shared = min(left.count, right.count)
        var index = 0
        while index < shared && left[index] == right[index] { index += 1 }
        // One is a prefix of the other, ending on a scalar boundary of both: the shorter first.
        if index == shared { return left.count < right.count }
        var start = index
        while start > 0 && left[start] & 0xC0 == 0x80 && right[start] & 0xC0 == 0x80 { start -= 1 }
        if left[start] == 0xF4 || right[start] == 0xF4 { return nil }
        return left[index] < right[index]
    }

    private static func precedesRaw(_ a: String, _ b: String) -> Bool {
        FileNameCoding.bytes(of: a).lexicographicallyPrecedes(FileNameCoding.bytes(of: b))
    }

    static func hasPrefix(_ string: String, _ prefix: String) -> Bool {
        string.utf8.starts(with: prefix.utf8)
    }
}
