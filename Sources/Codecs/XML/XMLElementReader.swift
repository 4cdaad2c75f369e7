/// An XML document as a tree of elements: names, attributes, direct text, children. Enough for the
/// small metadata files installer packages carry (`PackageInfo`, `Distribution`, rule 33), read
/// with limits, never trusting the input: no DTD is read (a `<!DOCTYPE>` is skipped, entities other
/// than the five predefined and character references are an error, so nothing expands), depth and
/// element count are bounded. Names keep their prefixes; namespaces are not resolved.
public struct XMLElement: Sendable, Equatable {
    public var name: String
    public var attributes: [String: String]
    /// The character data directly inside (CDATA included), concatenated.
    public var text: String
    public var children: [XMLElement]

    public init(name: String, attributes: [String: String] = [:], text: String = "", children: [XMLElement] = []) {
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
    }

    /// The children with this name.
    public func children(named name: String) -> [XMLElement] { children.filter { $0.name == name } }
    public func child(named name: String) -> XMLElement? { children.first { $0.name == name } }
}

public struct XMLError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ message: String, at offset: Int) { description = "XML: \(message) at byte \(offset)" }
}

public enum XMLElementReader {
    public static let maximumDepth = 256
    public static let maximumElements = 100_000

    /// The root element of `bytes` (UTF-8; invalid sequences repaired).
    public static func read(_ bytes: [UInt8]) throws(XMLError) -> XMLElement {
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var elements = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        func error(_ message: String) -> XMLError { XMLError(message, at: index) }

        func at(_ text: String) -> Bool { bytes[index...].starts(with: text.utf8) }

        mutating func skip(past terminator: String, what: String) throws(XMLError) {
            let pattern = Array(terminator.utf8)
            while index < bytes.count {
                if bytes[index...].starts(with: pattern) {
                    index += pattern.count
                    return
                }
                index += 1
            }
            throw error("unterminated \(what)")
        }

        mutating func skipSpaces() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// Comments, processing instructions and a DOCTYPE (its internal subset skipped whole).
        mutating func skipMisc() throws(XMLError) {
            while true {
                skipSpaces()
                if at("<!--") { try skip(past: "-->", what: "comment") } else if at("<?") { try skip(past: "?>", what: "processing instruction") } else if at("<!DOCTYPE") {
                    var depth = 0
                    while index < bytes.count {
                        let byte = bytes[index]
                        index += 1
                        if byte == UInt8(ascii: "[") { depth += 1 } else if byte == UInt8(ascii: "]") { depth -= 1 } else if byte == UInt8(ascii: ">"), depth <= 0 { break }
                    }
                } else { return }
            }
        }

        mutating func document() throws(XMLError) -> XMLElement {
            try skipMisc()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw error("no root element") }
            let root = try element(depth: 0)
            try skipMisc()
            guard index == bytes.count else { throw error("content after the root element") }
            return root
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || [UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: ".")].contains(byte)
        }

        mutating func name() throws(XMLError) -> String {
            let start = index
            while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
            guard index > start else { throw error("a name expected") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func element(depth: Int) throws(XMLError) -> XMLElement {
            guard depth < XMLElementReader.maximumDepth else { throw error("nested deeper than \(XMLElementReader.maximumDepth) elements") }
            elements += 1
            guard elements <= XMLElementReader.maximumElements else { throw error("more than \(XMLElementReader.maximumElements) elements") }
            index += 1 // <
            var element = XMLElement(name: try name())
            while true {
                skipSpaces()
                guard index < bytes.count else { throw error("unterminated start tag <\(element.name)>") }
                if bytes[index] == UInt8(ascii: "/") {
                    guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") else { throw error("`/` not followed by `>`") }
                    index += 2
                    return element
                }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    break
                }
                let attribute = try name()
                skipSpaces()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw error("`=` expected after \(attribute)") }
                index += 1
                skipSpaces()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { throw error("a quoted value expected") }
                let quote = bytes[index]
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != quote { index += 1 }
                guard index < bytes.count else { throw error("unterminated value of \(attribute)") }
                let value = try decodeEntities(start..<index)
                index += 1
                guard element.attributes.updateValue(value, forKey: attribute) == nil else { throw error("attribute \(attribute) twice") }
            }
            // Content: text, CDATA, comments, PIs, children, then the end tag.
            var text: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("<\(element.name)> not closed") }
                if bytes[index] != UInt8(ascii: "<") {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    text += Array(try decodeEntities(start..<index).utf8)
                } else if at("</") {
                    index += 2
                    let closing = try name()
                    guard closing == element.name else { throw error("</\(closing)> closes <\(element.name)>") }
                    skipSpaces()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw error("unterminated end tag") }
                    index += 1
                    element.text = String(decoding: text, as: UTF8.self)
                    return element
                } else if at("<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>", what: "CDATA section")
                    text += bytes[start..<(index - 3)]
                } else if at("<!--") {
                    try skip(past: "-->", what: "comment")
                } else if at("<?") {
                    try skip(past: "?>", what: "processing instruction")
                } else {
                    element.children.append(try self.element(depth: depth + 1))
                }
            }
        }

        /// Text with `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and `&#N;`/`&#xN;` replaced.
        func decodeEntities(_ range: Range<Int>) throws(XMLError) -> String {
            guard bytes[range].contains(UInt8(ascii: "&")) else { return String(decoding: bytes[range], as: UTF8.self) }
            var result: [UInt8] = []
            var position = range.lowerBound
            while position < range.upperBound {
                let byte = bytes[position]
                guard byte == UInt8(ascii: "&") else {
                    result.append(byte)
                    position += 1
                    continue
                }
                guard let end = bytes[position..<range.upperBound].firstIndex(of: UInt8(ascii: ";")), end - position <= 12 else {
                    throw XMLError("`&` without an entity", at: position)
                }
                let entity = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
                switch entity {
                case "lt": result.append(UInt8(ascii: "<"))
                case "gt": result.append(UInt8(ascii: ">"))
                case "amp": result.append(UInt8(ascii: "&"))
                case "quot": result.append(UInt8(ascii: "\""))
                case "apos": result.append(UInt8(ascii: "'"))
                default:
                    let digits = entity.dropFirst()
                    let value = entity.hasPrefix("#x") ? UInt32(digits.dropFirst(), radix: 16) : entity.hasPrefix("#") ? UInt32(digits, radix: 10) : nil
                    guard let value, value != 0, let scalar = Unicode.Scalar(value) else { throw XMLError("unknown entity &\(entity);", at: position) }
                    result += Array(String(Character(scalar)).utf8)
                }
                position = end + 1
            }
            return String(decoding: result, as: UTF8.self)
        }
    }
}
