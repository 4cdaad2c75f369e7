/// A property list read from a file, with how it was written and what was repaired on the way.
public struct PropertyListDocument: Sendable {
    public var value: PlistValue
    public var format: PlistFormat
    /// The text encoding of a text format; nil for binary.
    public var encoding: TextEncoding?
    /// Problems that were recovered from (a missing `;`, a legacy encoding guessed).
    public var problems: [PlistError]
}

/// Reads any of the three property-list formats from the bytes of a file.
public enum PropertyListReader {
    public static func read(_ bytes: [UInt8]) throws(PlistError) -> PropertyListDocument {
        if BinaryPlistParser.isBinary(bytes) {
            return PropertyListDocument(value: try BinaryPlistParser.parse(bytes), format: .binary, encoding: nil, problems: [])
        }
        let (text, encoding) = decodeText(bytes)
        var problems: [PlistError] = []
        if encoding.isLegacy {
            problems.append(PlistError("not valid UTF-8 or UTF-16; decoded as \(encoding.rawValue)", isWarning: true))
        }
        let utf8 = Array(text.utf8)
        if XMLPlistParser.looksLikeXML(utf8) {
            return PropertyListDocument(value: try XMLPlistParser.parse(utf8: utf8), format: .xml, encoding: encoding, problems: problems)
        }
        var parser = OpenStepPlistParser(utf8: utf8)
        let value = try parser.parseDocument()
        return PropertyListDocument(value: value, format: .openStep, encoding: encoding, problems: problems + parser.problems)
    }

    /// Text decoding, honouring an XML declaration's encoding when there is no BOM.
    static func decodeText(_ bytes: [UInt8]) -> (String, TextEncoding) {
        let decoded = TextDecoding.decode(bytes)
        guard decoded.encoding == .utf8 || decoded.encoding.isLegacy,
              let declared = declaredXMLEncoding(bytes)
        else { return decoded }
        switch declared {
        case "iso-8859-1", "latin1", "iso_8859-1", "windows-1252", "cp1252":
            return TextDecoding.decodeLegacyAs(.windows1252, bytes[...])
        case "macintosh", "macroman", "x-mac-roman":
            return TextDecoding.decodeLegacyAs(.macRoman, bytes[...])
        default:
            return decoded
        }
    }

    /// The lower-cased `encoding="..."` of an `<?xml ...?>` declaration at the very start.
    static func declaredXMLEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)),
              let end = bytes.prefix(200).firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        let declaration = Array(bytes[0..<end])
        let key = Array("encoding=".utf8)
        guard let start = (0...max(0, declaration.count - key.count)).first(where: { declaration[$0...].starts(with: key) }),
              start + key.count < declaration.count
        else { return nil }
        let value = declaration[(start + key.count + 1)...].prefix { $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "'") }
        return String(decoding: value, as: UTF8.self).lowercased()
    }
}
