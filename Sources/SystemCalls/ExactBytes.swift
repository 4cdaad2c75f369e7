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
        if a.utf8.contains(0xF4) || b.utf8.contains(0xF4) {
            return FileNameCoding.bytes(of: a).lexicographicallyPrecedes(FileNameCoding.bytes(of: b))
        }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static func hasPrefix(_ string: String, _ prefix: String) -> Bool {
        string.utf8.starts(with: prefix.utf8)
    }
}
