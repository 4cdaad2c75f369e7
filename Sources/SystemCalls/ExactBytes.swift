#if canImport(Glibc)
import Glibc
#endif

/// Equality, hashing and order of file names and paths by their bytes. Swift's `String` compares
/// by canonical equivalence, so `Résumé` in NFC and in NFD would be one key of a dictionary; to a
/// file system (and to the kernel's dentry cache) they are two names. The strings here carry bytes
/// as `FileNameCoding` describes: their UTF-8 is the file-system bytes, except that bytes which are
/// not valid UTF-8 are escaped. The coding is a bijection, so equal UTF-8 means equal bytes.
public enum ExactBytes {
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
        withBytes(string) { whole in
            withBytes(prefix) { start in
                whole.count >= start.count && (start.count == 0 || memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0)
            }
        }
    }

    /// `body` over the string's UTF-8: in place for a native string, as every string here is; a
    /// copy otherwise. Path and name arithmetic, asked of every name a walk lists, works through it:
    /// the generic index walk of `String.UTF8View` cost several times as much.
    @inlinable
    public static func withBytes<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(string.utf8).withUnsafeBufferPointer(body)
    }

    /// Whether `name` is one of the slash-separated components of `path`, compared in place.
    static func hasComponent(_ path: String, _ name: String) -> Bool {
        withBytes(path) { whole in
            withBytes(name) { part -> Bool in
                guard part.count > 0, whole.count >= part.count else { return false }
                var start = 0
                while start + part.count <= whole.count {
                    // `start` begins a component: compare it whole, then skip to the next one.
                    var end = start
                    while end < whole.count && whole[end] != slash { end += 1 }
                    if end - start == part.count && memcmp(whole.baseAddress! + start, part.baseAddress!, part.count) == 0 { return true }
                    start = end + 1
                }
                return false
            }
        }
    }

    /// The offset of the last `byte` in the string's UTF-8 before `end` (all of it when nil).
    public static func lastOffset(of byte: UInt8, in string: String, before end: Int? = nil) -> Int? {
        withBytes(string) { bytes -> Int? in
            var index = end ?? bytes.count
            while index > 0 {
                index -= 1
                if bytes[index] == byte { return index }
            }
            return nil
        }
    }

    /// The string of the UTF-8 bytes `range` of `string`: both ends must be scalar boundaries
    /// (next to an ASCII byte, as a slash or a dot is), so the result's bytes are exactly those.
    public static func slice(_ string: String, _ range: Range<Int>) -> String {
        if range.lowerBound == 0 && range.upperBound == string.utf8.count { return string }
        return withBytes(string) { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// `head`, then a slash when `slash`, then `tail`, made in one allocation (`+` makes two and
    /// takes the general append path twice).
    static func joined(_ head: String, slash: Bool, _ tail: String) -> String {
        withBytes(head) { left in
            withBytes(tail) { right in
                let count = left.count + (slash ? 1 : 0) + right.count
                return String(unsafeUninitializedCapacity: count) { out in
                    let base = UnsafeMutableRawPointer(out.baseAddress!)
                    if left.count > 0 { base.copyMemory(from: left.baseAddress!, byteCount: left.count) }
                    if slash { out[left.count] = UInt8(ascii: "/") }
                    if right.count > 0 { (base + count - right.count).copyMemory(from: right.baseAddress!, byteCount: right.count) }
                    return count
                }
            }
        }
    }
}
