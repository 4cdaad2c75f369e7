import CPostgres
import Codecs

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

    /// The string with any password taken out: structurally (a URI's user part, `password`
    /// parameters and words), then, as a net, wherever the password libpq would use still shows.
    public static func redacted(_ text: String) -> String {
        // A string libpq cannot parse may hold a password in a form nothing here recognises.
        let password: String?
        do { password = try parsedPassword(text) } catch { return "(a connection string libpq cannot parse)" }
        return removing(password, from: isURI(text) ? redactedURI(text) : redactedKeywords(text))
    }

    /// The password libpq finds in the string, or nil; a string libpq cannot parse is an error
    /// whose message quotes nothing of it (libpq's would).
    public static func parsedPassword(_ text: String) throws -> String? {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &message) else {
            if let message { PQfreemem(message) }
            throw PostgresError("the connection string is malformed (libpq cannot parse it; its message is not shown because it may quote a password)")
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val {
                let password = String(cString: value)
                return password.isEmpty ? nil : password
            }
            option += 1
        }
        return nil
    }

    /// `text` with every occurrence of `password`, as written or percent-encoded, replaced.
    static func removing(_ password: String?, from text: String) -> String {
        guard let password, !password.isEmpty else { return text }
        var result = text
        for form in Set([password, percentEncoded(password)]) { result = result.replacingAll(form, with: "***") }
        return result
    }

    private static func percentEncoded(_ text: String) -> String {
        PercentEncoding.encode(text.utf8, uppercase: true) { byte in
            !((0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte))
        }
    }

    /// libpq's reading: the user part ends at the first `/` after the scheme (a `?` or `#` in a
    /// password is the password's), and query keys are percent-decoded.
    private static func redactedURI(_ text: String) -> String {
        let schemeEnd = text.range(of: "://")!.upperBound
        let rest = text[schemeEnd...]
        let hostPartEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = String(rest[..<hostPartEnd])
        var tail = String(rest[hostPartEnd...])
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            if let colon = user.firstIndex(of: ":") { authority = String(user[..<colon]) + authority[at...] }
        } else if let question = authority.firstIndex(of: "?") {
            // No user part: the query starts in what looked like the host part.
            tail = String(authority[question...]) + tail
            authority = String(authority[..<question])
        }
        if let question = tail.firstIndex(of: "?") {
            let query = tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            let kept = query.filter { parameter in
                let key = parameter.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                return (PercentEncoding.decode(key) ?? key).lowercased() != "password"
            }
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
        guard start < text.endIndex, text[start] == "'" else {
            var cursor = start
            while cursor < text.endIndex, !text[cursor].isWhitespace {
                if text[cursor] == "\\" { cursor = text.index(after: cursor); if cursor == text.endIndex { break } }
                cursor = text.index(after: cursor)
            }
            return cursor
        }
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

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
