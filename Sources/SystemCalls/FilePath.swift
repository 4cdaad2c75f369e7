/// A path, absolute (`/srv/Apps/Chess.app`) or relative (`Contents/Info.plist`; empty for "here"),
/// as the file system has it: compared, hashed and ordered by its bytes like `FileName`. Path
/// arithmetic is lexical: nothing is resolved.
public struct FilePath: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path's bytes, carried losslessly (`FileNameCoding`).
    public let string: String

    public init(_ string: String) { self.string = string }

    public init(stringLiteral value: String) { string = value }

    public init<C: Collection>(bytes: C) where C.Element == UInt8 { string = FileNameCoding.string(from: bytes) }

    /// A relative path of one component.
    public init(_ name: FileName) { string = name.string }

    public static let root = FilePath("/")
    /// The empty relative path: the directory itself.
    public static let here = FilePath("")

    public var bytes: [UInt8] { FileNameCoding.bytes(of: string) }
    public var description: String { string }

    public static func == (a: FilePath, b: FilePath) -> Bool { ExactBytes.equal(a.string, b.string) }
    public func hash(into hasher: inout Hasher) { ExactBytes.hash(string, into: &hasher) }
    public static func < (a: FilePath, b: FilePath) -> Bool { ExactBytes.precedes(a.string, b.string) }

    public var isEmpty: Bool { string.isEmpty }
    public var isAbsolute: Bool { string.utf8.first == slash }

    /// This path with `name` added as its last component.
    public func appending(_ name: FileName) -> FilePath { appending(name.string) }

    /// This path continued by a relative path (`""` leaves it as it is). A string literal
    /// argument is taken as a `FileName`.
    @_disfavoredOverload
    public func appending(_ relative: FilePath) -> FilePath { appending(relative.string) }

    private func appending(_ component: String) -> FilePath {
        if component.isEmpty { return self }
        if string.isEmpty { return FilePath(component) }
        return FilePath(ExactBytes.joined(string, slash: string.utf8.last != slash, component))
    }

    /// The last component: `/a/b.app` → `b.app`; `/` → `/`.
    public var lastComponent: FileName {
        let end = trimmedCount
        guard end > 1, let index = ExactBytes.lastOffset(of: slash, in: string, before: end) else { return FileName(ExactBytes.slice(string, 0..<end)) }
        return FileName(ExactBytes.slice(string, index + 1..<end))
    }

    /// Everything before the last component: `/a/b.app` → `/a`; `/a` → `/`; `a` → ``.
    public var parent: FilePath {
        guard let index = ExactBytes.lastOffset(of: slash, in: string, before: trimmedCount) else { return .here }
        if index == 0 { return .root }
        return FilePath(ExactBytes.slice(string, 0..<index))
    }

    /// The components, without empty ones (`/a//b/` → `a`, `b`).
    public var components: [FileName] {
        string.utf8.split(separator: slash, omittingEmptySubsequences: true).map { FileName(String($0)!) }
    }

    /// Whether one of the components is `name` (without splitting the path into them).
    public func hasComponent(_ name: FileName) -> Bool { ExactBytes.hasComponent(string, name.string) }

    /// Whether this path is `ancestor` or lies under it, component-wise.
    public func isWithin(_ ancestor: FilePath) -> Bool {
        if self == ancestor { return true }
        if ancestor == .root { return isAbsolute }
        if ancestor.isEmpty { return !isAbsolute }
        let count = ancestor.string.utf8.count
        return string.utf8.count > count && ExactBytes.hasPrefix(string, ancestor.string)
            && string.utf8[string.utf8.index(string.utf8.startIndex, offsetBy: count)] == slash
    }

    /// This path relative to `ancestor` (`""` when equal); nil when it is not within it.
    public func relative(to ancestor: FilePath) -> FilePath? {
        guard isWithin(ancestor) else { return nil }
        if self == ancestor { return .here }
        if ancestor.isEmpty { return self }
        let skip = ancestor == .root ? 1 : ancestor.string.utf8.count + 1
        return FilePath(ExactBytes.slice(string, skip..<string.utf8.count))
    }

    /// The path that `to` stands for after the subtree at `from` moved there: for paths within
    /// `from` only.
    public func moved(from: FilePath, to: FilePath) -> FilePath? {
        relative(to: from).map { to.appending($0) }
    }

    /// The lexically normalized absolute form (`.`, `..` and repeated slashes removed), against
    /// `base` when relative. No symlink is resolved.
    public func absolute(base: FilePath) -> FilePath {
        let full = isAbsolute ? self : base.appending(self)
        var parts: [FileName] = []
        for part in full.components {
            if part.string == "." { continue }
            if part.string == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return FilePath("/" + parts.map(\.string).joined(separator: "/"))
    }

    /// Calls `body` with the NUL-terminated bytes; fails with EINVAL for a path holding NUL.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) throws -> R {
        try FileNameCoding.withCString(string, body)
    }

    /// The UTF-8 length without trailing slashes (but for a first one: `/` stays `/`).
    private var trimmedCount: Int {
        ExactBytes.withBytes(string) { bytes in
            var end = bytes.count
            while end > 1 && bytes[end - 1] == slash { end -= 1 }
            return end
        }
    }
}

/// The separator of path components (used by `ExactBytes` too).
let slash = UInt8(ascii: "/")
