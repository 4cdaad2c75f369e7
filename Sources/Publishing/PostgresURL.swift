/// Connection strings as users write them for libpq: a URI (`postgresql://user@host/db?sslmode=…`)
/// or `key=value` words. A password may be in one (libpq allows it); it must never reach a log line,
/// `status` or the catalogue, so everything shown goes through `redacted`.
public enum PostgresURL {
    /// Whether it is a connection string at all (a URI with libpq's schemes, or key=value words,
    /// or empty: everything from `PG*` variables and `PGSERVICE`).
    public static func looksValid(_ text: String) -> Bool {
        text.isEmpty || isURI(text) || text.contains("=")
    }

    static func isURI(_ text: String) -> Bool { text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") }

    /// Whether it carries a password (in the user part of a URI or as a `password` parameter).
    public static func hasPassword(_ text: String) -> Bool { redacted(text) != text }

    /// The string with any password taken out.
    /// Any `scheme://user:password@…`, not only libpq's, so a mistyped scheme shows none either.
    public static func redacted(_ text: String) -> String {
        text.contains("://") ? redactedURI(text) : redactedKeywords(text)
    }

    private static func redactedURI(_ text: String) -> String {
        let schemeEnd = text.range(of: "://")!.upperBound
        let rest = text[schemeEnd...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            if let colon = user.firstIndex(of: ":") { authority = String(user[..<colon]) + authority[at...] }
        }
        var tail = String(rest[authorityEnd...])
        if let question = tail.firstIndex(of: "?") {
            let query = tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            let kept = query.filter { !$0.lowercased().hasPrefix("password=") }
            tail = String(tail[..<question]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        }
        return String(text[..<schemeEnd]) + authority + tail
    }

    /// `password = value` or `password='quoted \' value'` dropped from key=value words.
    private static func redactedKeywords(_ text: String) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            let wordStart = rest.firstIndex { !$0.isWhitespace } ?? text.endIndex
            result += text[index..<wordStart]
            guard wordStart < text.endIndex else { break }
            let keyEnd = text[wordStart...].firstIndex { $0 == "=" || $0.isWhitespace } ?? text.endIndex
            let key = text[wordStart..<keyEnd]
            var cursor = keyEnd
            while cursor < text.endIndex, text[cursor].isWhitespace { cursor = text.index(after: cursor) }
            guard cursor < text.endIndex, text[cursor] == "=" else {
                result += text[wordStart..<cursor]
                index = cursor
                continue
            }
            cursor = text.index(after: cursor)
            while cursor < text.endIndex, text[cursor].isWhitespace { cursor = text.index(after: cursor) }
            let valueEnd = endOfValue(text, from: cursor)
            if key.lowercased() != "password" { result += text[wordStart..<valueEnd] } else { result = String(result.reversed().drop { $0.isWhitespace }.reversed()) }
            index = valueEnd
        }
        return result
    }

    private static func endOfValue(_ text: String, from start: String.Index) -> String.Index {
        guard start < text.endIndex, text[start] == "'" else { return text[start...].firstIndex { $0.isWhitespace } ?? text.endIndex }
        var cursor = text.index(after: start)
        while cursor < text.endIndex {
            if text[cursor] == "\\" {
                cursor = text.index(after: cursor)
                if cursor < text.endIndex { cursor = text.index(after: cursor) }
                continue
            }
            if text[cursor] == "'" { return text.index(after: cursor) }
            cursor = text.index(after: cursor)
        }
        return text.endIndex
    }
}
