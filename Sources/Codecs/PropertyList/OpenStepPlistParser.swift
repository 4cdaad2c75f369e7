/// NeXT/OpenStep text property lists, GNUstep's extensions (`<*I5>`, `<*R1.5>`, `<*BY>`, `<*D...>`),
/// and the `.strings` form (a dictionary without braces, `"key" = "value";`, where `"key";` means
/// key = key). Parsed from UTF-8 bytes.
///
/// Real files are often slightly broken. A missing `;` is recovered from and reported in
/// `problems`; anything that leaves the structure ambiguous (an unterminated string, a missing `=`)
/// fails with the line it was found on.
struct OpenStepPlistParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private(set) var problems: [PlistError] = []

    init(utf8 bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a whole document: one value, or a strings-file dictionary when the text is one.
    mutating func parseDocument() throws(PlistError) -> PlistValue {
        try skipSpaceAndComments()
        if index == bytes.count { return .dictionary([:]) }
        let first = bytes[index]
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "(") || first == UInt8(ascii: "<") {
            let value = try parseValue()
            try skipSpaceAndComments()
            if index < bytes.count {
                // A stray `;` after the root is common in GNUstep-written files.
                if bytes[index] == UInt8(ascii: ";") { index += 1; try skipSpaceAndComments() }
                if index < bytes.count { throw error("unexpected text after the root value") }
            }
            return value
        }
        // A string alone (`hello`, `"hello"`) is a string root, as CoreFoundation reads it; only
        // text that goes on (`"a" = "b";`, `"a";`) is a strings-file dictionary.
        let (start, recovered) = (index, problems)
        if let alone = try? parseValue() {
            try skipSpaceAndComments()
            if index == bytes.count { return alone }
        }
        (index, problems) = (start, recovered)
        return .dictionary(try parseDictionaryBody(closing: nil))
    }

    private mutating func parseValue() throws(PlistError) -> PlistValue {
        try skipSpaceAndComments()
        guard index < bytes.count else { throw error("expected a value, found the end of the file") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            try descend()
            defer { depth -= 1 }
            return .dictionary(try parseDictionaryBody(closing: UInt8(ascii: "}")))
        case UInt8(ascii: "("):
            index += 1
            try descend()
            defer { depth -= 1 }
            return .array(try parseArrayBody())
        case UInt8(ascii: "<"):
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "*") { return try parseTyped() }
            return .data(try parseData())
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try parseQuoted())
        default:
            guard let word = parseUnquoted() else {
                throw error("unexpected character '\(printable(bytes[index]))'")
            }
            return .string(word)
        }
    }

    private mutating func descend() throws(PlistError) {
        depth += 1
        if depth > maximumPlistDepth { throw error("nested more than \(maximumPlistDepth) levels deep") }
    }

    /// `key = value;` pairs up to `closing` (or the end of the file for a strings file).
    private mutating func parseDictionaryBody(closing: UInt8?) throws(PlistError) -> [String: PlistValue] {
        var result: [String: PlistValue] = [:]
        while true {
            try skipSpaceAndComments()
            if index == bytes.count {
                if closing == nil { return result }
                throw error("missing '}' at the end of the file")
            }
            if let closing, bytes[index] == closing { index += 1; return result }
            if bytes[index] == UInt8(ascii: ";") { index += 1; continue }
            let keyStart = index
            let key: String
            switch try parseValue() {
            case let .string(text): key = text
            default: throw error("a dictionary key must be a string", at: keyStart)
            }
            try skipSpaceAndComments()
            guard index < bytes.count else {
                // A bare word at the end with neither `=` nor `;` is no entry (`a;djflk...`, biplist's
                // bogus file, is not a two-key dictionary); a missing `;` is recovered only after a value.
                throw error(closing == nil ? "\"\(key.prefix(40))\" at the end of the file has no '=' or ';'" : "missing '}' at the end of the file", at: keyStart)
            }
            if bytes[index] == UInt8(ascii: ";") {
                // `"key";` in a strings file: the value is the key itself.
                index += 1
                result[key] = .string(key)
                continue
            }
            guard bytes[index] == UInt8(ascii: "=") else {
                throw error("expected '=' after key \"\(key.prefix(40))\"")
            }
            index += 1
            let value = try parseValue()
            result[key] = value
            try skipSpaceAndComments()
            if index < bytes.count, bytes[index] == UInt8(ascii: ";") {
                index += 1
            } else {
                // The end, or another key: recover, but say so.
                problems.append(error("missing ';' after the value of \"\(key.prefix(40))\""))
            }
        }
    }

    private mutating func parseArrayBody() throws(PlistError) -> [PlistValue] {
        var result: [PlistValue] = []
        while true {
            try skipSpaceAndComments()
            guard index < bytes.count else { throw error("missing ')' at the end of the file") }
            if bytes[index] == UInt8(ascii: ")") { index += 1; return result }
            result.append(try parseValue())
            try skipSpaceAndComments()
            guard index < bytes.count else { throw error("missing ')' at the end of the file") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: ")") { index += 1; return result }
            throw error("expected ',' or ')' in an array")
        }
    }

    /// A quoted string with the escapes CoreFoundation and GNUstep accept.
    private mutating func parseQuoted() throws(PlistError) -> String {
        let quote = bytes[index]
        let start = index
        index += 1
        var out: [UInt8] = []
        var pendingHighSurrogate: UInt32? = nil
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                index += 1
                if pendingHighSurrogate != nil { out.append(contentsOf: [0xEF, 0xBF, 0xBD]) }
                return String(decoding: out, as: UTF8.self)
            }
            if byte != UInt8(ascii: "\\") {
                if pendingHighSurrogate != nil { out.append(contentsOf: [0xEF, 0xBF, 0xBD]); pendingHighSurrogate = nil }
                out.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            var scalarValue: UInt32
            switch escape {
            case UInt8(ascii: "n"): scalarValue = 0x0A
            case UInt8(ascii: "t"): scalarValue = 0x09
            case UInt8(ascii: "r"): scalarValue = 0x0D
            case UInt8(ascii: "b"): scalarValue = 0x08
            case UInt8(ascii: "f"): scalarValue = 0x0C
            case UInt8(ascii: "v"): scalarValue = 0x0B
            case UInt8(ascii: "a"): scalarValue = 0x07
            case UInt8(ascii: "U"), UInt8(ascii: "u"):
                scalarValue = 0
                var digits = 0
                while digits < 4, index < bytes.count, let digit = Hex.value(bytes[index]) {
                    scalarValue = scalarValue << 4 | UInt32(digit)
                    index += 1
                    digits += 1
                }
                if digits == 0 { scalarValue = UInt32(escape) }
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                scalarValue = UInt32(escape - 0x30)
                var digits = 1
                while digits < 3, index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x37 {
                    scalarValue = scalarValue << 3 | UInt32(bytes[index] - 0x30)
                    index += 1
                    digits += 1
                }
                scalarValue &= 0xFF
            default:
                scalarValue = UInt32(escape) // \" \\ \' \? and anything else stand for themselves
            }
            if (0xD800...0xDBFF).contains(scalarValue) {
                if pendingHighSurrogate != nil { out.append(contentsOf: [0xEF, 0xBF, 0xBD]) }
                pendingHighSurrogate = scalarValue
                continue
            }
            if (0xDC00...0xDFFF).contains(scalarValue), let high = pendingHighSurrogate {
                scalarValue = 0x10000 + ((high - 0xD800) << 10) + (scalarValue - 0xDC00)
            } else if pendingHighSurrogate != nil {
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            }
            pendingHighSurrogate = nil
            let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
            out.append(contentsOf: Array(String(scalar).utf8))
        }
        throw error("unterminated quoted string", at: start)
    }

    /// Unquoted strings: letters, digits and `_$+/:.-`, plus any non-ASCII byte (GNUstep writes them).
    private mutating func parseUnquoted() -> String? {
        let start = index
        while index < bytes.count, Self.isUnquotedByte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func isUnquotedByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return byte >= 0x80
        }
    }

    /// `<0fbd 7777>` after the `<`.
    private mutating func parseData() throws(PlistError) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8? = nil
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ">") {
                guard high == nil else { throw error("odd number of hex digits in data") }
                return out
            }
            if XMLPlistParser.isSpace(byte) { continue }
            guard let value = Hex.value(byte) else { throw error("'\(printable(byte))' in hex data") }
            if let first = high { out.append(first << 4 | value); high = nil } else { high = value }
        }
        throw error("unterminated <data>")
    }

    /// GNUstep's typed values after `<`: `*I`, `*R`, `*B`, `*D`.
    private mutating func parseTyped() throws(PlistError) -> PlistValue {
        index += 1 // "*"
        guard index < bytes.count else { throw error("unterminated <* value") }
        let type = bytes[index]
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
        guard index < bytes.count else { throw error("unterminated <* value") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self).trimmingSpaces
        index += 1
        switch type {
        case UInt8(ascii: "I"):
            guard let value = XMLPlistParser.integer(text) else { throw error("<*I\(text.prefix(20))> is not an integer") }
            return value
        case UInt8(ascii: "R"):
            guard let value = XMLPlistParser.real(text) else { throw error("<*R\(text.prefix(20))> is not a number") }
            return .real(value)
        case UInt8(ascii: "B"):
            switch text {
            case "Y", "YES", "y": return .bool(true)
            case "N", "NO", "n": return .bool(false)
            default: throw error("<*B\(text.prefix(20))> is not Y or N")
            }
        case UInt8(ascii: "D"):
            guard let value = PlistDate.parseISO8601(text) else { throw error("<*D\(text.prefix(30))> is not a date") }
            return .date(value)
        default:
            throw error("unknown typed value <*\(printable(type))...>")
        }
    }

    private mutating func skipSpaceAndComments() throws(PlistError) {
        while index < bytes.count {
            let byte = bytes[index]
            if XMLPlistParser.isSpace(byte) || byte == 0x0C || byte == 0x0B { index += 1; continue }
            if byte == UInt8(ascii: "/"), index + 1 < bytes.count {
                if bytes[index + 1] == UInt8(ascii: "/") {
                    while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                    continue
                }
                if bytes[index + 1] == UInt8(ascii: "*") {
                    let start = index
                    index += 2
                    while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                        index += 1
                    }
                    guard index + 1 < bytes.count else { throw error("unterminated /* comment", at: start) }
                    index += 2
                    continue
                }
            }
            // A BOM that survived decoding, or stray NULs from a broken UTF-16 conversion.
            if byte == 0 { index += 1; continue }
            return
        }
    }

    /// An error at `position` (default: here), with its line counted only now that it is needed.
    private func error(_ message: String, at position: Int? = nil) -> PlistError {
        let end = min(position ?? index, bytes.count)
        return PlistError(message, line: bytes[0..<end].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 })
    }

    private func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }
}
