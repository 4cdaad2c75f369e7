/// One component of a path, as the file system has it: bytes, compared, hashed and ordered as
/// bytes (see `ExactBytes`). The bytes travel in a `String` (see `FileNameCoding`), so a name goes
/// to JSON, SQLite and messages without conversion, and costs no more than that string.
public struct FileName: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name's bytes, carried losslessly (`FileNameCoding`).
    public let string: String

    /// A name from its coded string (as `FileNameCoding` or a listing produced it).
    public init(_ string: String) { self.string = string }

    public init(stringLiteral value: String) { string = value }

    /// A name from raw file-system bytes.
    public init<C: Collection>(bytes: C) where C.Element == UInt8 { string = FileNameCoding.string(from: bytes) }

    /// The file-system bytes.
    public var bytes: [UInt8] { FileNameCoding.bytes(of: string) }

    public var description: String { string }

    public static func == (a: FileName, b: FileName) -> Bool { ExactBytes.equal(a.string, b.string) }
    public func hash(into hasher: inout Hasher) { ExactBytes.hash(string, into: &hasher) }
    public static func < (a: FileName, b: FileName) -> Bool { ExactBytes.precedes(a.string, b.string) }

    public var isEmpty: Bool { string.isEmpty }

    /// Whether the name starts with these bytes (`._`, `.`): byte-wise, not by characters.
    public func hasPrefix(_ prefix: String) -> Bool { ExactBytes.hasPrefix(string, prefix) }

    /// The name without its first `count` bytes (after `hasPrefix("._")`, say).
    public func dropping(prefixBytes count: Int) -> FileName {
        // An ASCII prefix is the same bytes in the coded string; anything else goes through the bytes.
        if string.utf8.prefix(count).allSatisfy({ $0 < 0x80 }), let rest = String(string.utf8.dropFirst(count)) { return FileName(rest) }
        return FileName(bytes: bytes.dropFirst(count))
    }

    /// `prefix` followed by this name: `._` + name is the AppleDouble sidecar's name.
    public func prefixed(_ prefix: String) -> FileName { FileName(prefix + string) }

    /// `.` and `..`, which name no entry of their own.
    public var isDotOrDotDot: Bool { string == "." || string == ".." }
}
