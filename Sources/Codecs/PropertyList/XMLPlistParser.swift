/// Apple's XML property-list format, parsed from UTF-8 bytes. Only what plists use: the prolog
/// (declaration, DOCTYPE, comments), the plist elements, the five named entities and character
/// references, CDATA sections.
struct XMLPlistParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(utf8 bytes: [UInt8]) { self.bytes = bytes }

    static func parse(utf8 bytes: [UInt8]) throws(PlistError) -> PlistValue {
        var parser = XMLPlistParser(utf8: bytes)
        return try parser.parseDocument()
    }

    /// Whether UTF-8 text looks like an XML plist rather than an OpenStep one.
    static func looksLikeXML(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        let rest = bytes[index...]
        return rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<!DOCTYPE".utf8))
            || rest.starts(with: Array("<plist".utf8)) || rest.starts(with: Array("<!--".utf8))
    }

    private mutating func parseDocument() throws(PlistError) -> PlistValue {
        try skipMisc()
        guard peek(is: "<plist") || peek(is: "<dict") || peek(is: "<array") || peek(is: "<string") else {
            throw error("expected <plist> as the root element")
        }
        let value: PlistValue
        if peek(is: "<plist") {
            let tag = try readTag()
            if tag.selfClosing { throw error("<plist/> holds no value") }
            try skipMisc()
            value = try parseValue()
            try skipMisc()
            try expectClose("plist")
        } else {
            value = try parseValue()
        }
        try skipMisc()
        if index < bytes.count { throw error("unexpected content after the root element") }
        return value
    }

    private mutating func parseValue() throws(PlistError) -> PlistValue {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw error("expected an element") }
        let tag = try readTag()
        if tag.closing { throw error("unexpected </\(tag.name)>") }
        switch tag.name {
        case "dict": return tag.selfClosing ? .dictionary([:]) : try parseDictionary()
        case "array": return tag.selfClosing ? .array([]) : try parseArray()
        case "string": return .string(tag.selfClosing ? "" : try readText(closing: "string"))
        case "true": if !tag.selfClosing { try expectClose("true") }; return .bool(true)
        case "false": if !tag.selfClosing { try expectClose("false") }; return .bool(false)
        case "integer":
            let text = tag.selfClosing ? "" : try readText(closing: "integer")
            guard let value = Self.integer(text) else { throw error("<integer> holds \"\(text.prefix(40))\"") }
            return value
        case "real":
            let text = tag.selfClosing ? "" : try readText(closing: "real")
            guard let value = Self.real(text) else { throw error("<real> holds \"\(text.prefix(40))\"") }
            return .real(value)
        case "date":
            let text = tag.selfClosing ? "" : try readText(closing: "date")
            guard let value = PlistDate.parseISO8601(text.trimmingSpaces) else { throw error("<date> holds \"\(text.prefix(40))\"") }
            return .date(value)
        case "data":
            let text = tag.selfClosing ? "" : try readText(closing: "data")
            guard let value = Base64.decode(text) else { throw error("<data> is not base64") }
            return .data(value)
        default:
            throw error("unknown element <\(tag.name)>")
        }
    }

    private mutating func parseDictionary() throws(PlistError) -> PlistValue {
        depth += 1
        defer { depth -= 1 }
        if depth > maximumPlistDepth { throw error("nested more than \(maximumPlistDepth) levels deep") }
        // Gathered first and hashed once into a table of the right size (a later duplicate key
        // wins, as it would by assignment), instead of rehashing as a growing table.
        var entries: [(String, PlistValue)] = []
        while true {
            try skipMisc()
            if peek(is: "</") {
                try expectClose("dict")
                return .dictionary(Dictionary(entries, uniquingKeysWith: { _, later in later }))
            }
            let tag = try readTag()
            guard tag.name == "key", !tag.closing else { throw error("expected <key> in <dict>, found <\(tag.name)>") }
            let key = tag.selfClosing ? "" : try readText(closing: "key")
            try skipMisc()
            entries.append((key, try parseValue()))
        }
    }

    private mutating func parseArray() throws(PlistError) -> PlistValue {
        depth += 1
        defer { depth -= 1 }
        if depth > maximumPlistDepth { throw error("nested more than \(maximumPlistDepth) levels deep") }
        var result: [PlistValue] = []
        while true {
            try skipMisc()
            if peek(is: "</") { try expectClose("array"); return .array(result) }
            result.append(try parseValue())
        }
    }

    private struct Tag { var name: String; var closing: Bool; var selfClosing: Bool }

    /// Reads `<name attr="...">`, `</name>` or `<name/>`; attributes are skipped.
    private mutating func readTag() throws(PlistError) -> Tag {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else {
            throw error(index < bytes.count ? "expected a tag, found text" : "unexpected end of file")
        }
        index += 1 // "<"
        let closing = index < bytes.count && bytes[index] == UInt8(ascii: "/")
        if closing { index += 1 }
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        let name = String(decoding: bytes[start..<index], as: UTF8.self)
        if name.isEmpty { throw error("malformed tag") }
        var quote: UInt8? = nil
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                let selfClosing = bytes[index - 1] == UInt8(ascii: "/")
                index += 1
                return Tag(name: name, closing: closing, selfClosing: selfClosing)
            }
            index += 1
        }
        throw error("unterminated <\(name)> tag")
    }

    private mutating func expectClose(_ name: String) throws(PlistError) {
        try skipMisc()
        guard peek(is: "</") else { throw error("expected </\(name)>") }
        let tag = try readTag()
        guard tag.closing, tag.name == name else { throw error("expected </\(name)>, found </\(tag.name)>") }
    }

    /// Character data up to `</closing>`, with entities, character references and CDATA decoded.
    private mutating func readText(closing name: String) throws(PlistError) -> String {
        // Most text holds no reference, CDATA section or comment: taken from the document as it is.
        let start = index
        while index < bytes.count && bytes[index] != UInt8(ascii: "<") && bytes[index] != UInt8(ascii: "&") { index += 1 }
        if index < bytes.count && bytes[index] == UInt8(ascii: "<") && !peek(is: "<![CDATA[") && !peek(is: "<!--") {
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            try expectClose(name)
            return text
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if peek(is: "<![CDATA[") {
                    index += 9
                    guard let end = find("]]>") else { throw error("unterminated CDATA section") }
                    out.append(contentsOf: bytes[index..<end])
                    index = end + 3
                    continue
                }
                if peek(is: "<!--") { try skipComment(); continue }
                try expectClose(name)
                return String(decoding: out, as: UTF8.self)
            }
            if byte == UInt8(ascii: "&") {
                try decodeReference(into: &out)
                continue
            }
            out.append(byte)
            index += 1
        }
        throw error("unterminated <\(name)>")
    }

    private mutating func decodeReference(into out: inout [UInt8]) throws(PlistError) {
        guard let semicolon = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw error("unterminated entity reference")
        }
        let entity = String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)
        index = semicolon + 1
        let scalar: Unicode.Scalar?
        switch entity {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if entity.hasPrefix("#") {
                scalar = UInt32(entity.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            } else {
                scalar = nil
            }
        }
        guard let scalar else { throw error("unknown entity &\(entity.prefix(10));") }
        out.append(contentsOf: Array(String(scalar).utf8))
    }

    /// Skips whitespace, comments, processing instructions and DOCTYPE.
    private mutating func skipMisc() throws(PlistError) {
        while index < bytes.count {
            if Self.isSpace(bytes[index]) { index += 1; continue }
            if peek(is: "<!--") { try skipComment(); continue }
            if peek(is: "<?") {
                guard let end = find("?>") else { throw error("unterminated <? ?>") }
                index = end + 2
                continue
            }
            if peek(is: "<!DOCTYPE") {
                var brackets = 0
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: "[") { brackets += 1 }
                    if byte == UInt8(ascii: "]") { brackets -= 1 }
                    if byte == UInt8(ascii: ">") && brackets <= 0 { break }
                }
                continue
            }
            return
        }
    }

    private mutating func skipComment() throws(PlistError) {
        index += 4
        guard let end = find("-->") else { throw error("unterminated comment") }
        index = end + 3
    }

    private func peek(is literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] { return false }
        return true
    }

    private func find(_ literal: StaticString) -> Int? {
        let count = literal.utf8CodeUnitCount
        let pointer = literal.utf8Start
        var position = index
        while position + count <= bytes.count {
            if bytes[position] == pointer[0] {
                var matched = true
                for offset in 1..<count where bytes[position + offset] != pointer[offset] { matched = false; break }
                if matched { return position }
            }
            position += 1
        }
        return nil
    }

    private func error(_ message: String) -> PlistError {
        let upTo = min(index, bytes.count)
        let line = bytes[0..<upTo].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        return PlistError(message, line: line)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    /// `<integer>` text: decimal with optional sign, or `0x` hex, as CoreFoundation accepts; from
    /// -2^63 to 2^64 - 1 (rule 7: never wrapped to a negative number).
    static func integer(_ text: String) -> PlistValue? {
        let trimmed = text.trimmingSpaces
        var digits = Substring(trimmed)
        var negative = false
        if digits.hasPrefix("-") { negative = true; digits = digits.dropFirst() } else if digits.hasPrefix("+") { digits = digits.dropFirst() }
        let magnitude: UInt64?
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            magnitude = UInt64(digits.dropFirst(2), radix: 16)
        } else {
            magnitude = UInt64(digits, radix: 10)
        }
        guard let magnitude else { return nil }
        return PlistValue.integer(magnitude: magnitude, negative: negative)
    }

    static func real(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces
        switch trimmed.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: return Double(trimmed)
        }
    }
}
