/// Path arithmetic on `String` paths (see `FileNameCoding` for how bytes are carried).
public enum Paths {
    public static func join(_ base: String, _ component: String) -> String {
        if component.isEmpty { return base }
        if base.isEmpty { return component }
        if base.utf8.last == UInt8(ascii: "/") { return base + component }
        return base + "/" + component
    }

    public static func join(_ base: String, _ components: [String]) -> String {
        components.reduce(base) { join($0, $1) }
    }

    /// The last component: `/a/b.app` → `b.app`; `/` → `/`.
    public static func lastComponent(_ path: String) -> String {
        let trimmed = trimTrailingSlashes(path)
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return trimmed }
        if trimmed.utf8.count == 1 { return trimmed }
        return String(trimmed[trimmed.utf8.index(after: slash)...])
    }

    /// Everything before the last component: `/a/b.app` → `/a`; `/a` → `/`; `a` → ``.
    public static func parent(_ path: String) -> String {
        let trimmed = trimTrailingSlashes(path)
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == trimmed.utf8.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// Whether `path` is `ancestor` or lies under it.
    public static func isWithin(_ path: String, _ ancestor: String) -> Bool {
        if path == ancestor { return true }
        if ancestor == "/" { return path.hasPrefix("/") }
        return path.hasPrefix(ancestor) && path.utf8.dropFirst(ancestor.utf8.count).first == UInt8(ascii: "/")
    }

    /// `path` relative to `ancestor` (`""` when equal); nil when it is not within it.
    public static func relative(_ path: String, to ancestor: String) -> String? {
        guard isWithin(path, ancestor) else { return nil }
        if path == ancestor { return "" }
        let skip = ancestor == "/" ? 1 : ancestor.utf8.count + 1
        return String(path.utf8.dropFirst(skip))!
    }

    /// The lexically normalized absolute form of a path (`.` and `..` and repeated slashes
    /// removed), against `base` when relative. No symlink is resolved.
    public static func absolute(_ path: String, base: String) -> String {
        let full = path.hasPrefix("/") ? path : join(base, path)
        var parts: [Substring] = []
        for part in full.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    static func trimTrailingSlashes(_ path: String) -> String {
        var result = Substring(path)
        while result.utf8.count > 1 && result.utf8.last == UInt8(ascii: "/") { result = result.dropLast() }
        return String(result)
    }
}
