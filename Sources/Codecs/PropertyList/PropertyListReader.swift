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
        let (utf8, encoding) = decodeText(bytes)
        var problems: [PlistError] = []
        if encoding.isLegacy {
            problems.append(PlistError("not valid UTF-8 or UTF-16; decoded as \(encoding.rawValue)", isWarning: true))
        }
        if XMLPlistParser.looksLikeXML(utf8) {
            return PropertyListDocument(value: try XMLPlistParser.parse(utf8: utf8), format: .xml, encoding: encoding, problems: problems)
        }
        var parser = OpenStepPlistParser(utf8: utf8)
        let value = try parser.parseDocument()
        return PropertyListDocument(value: value, format: .openStep, encoding: encoding, problems: problems + parser.problems)
    }

    /// Text decoding to the UTF-8 the parsers read, honouring an XML declaration's encoding when
    /// there is no BOM.
    static func decodeText(_ bytes: [UInt8]) -> ([UInt8], TextEncoding) {
        let decoded = TextDecoding.decodeToUTF8(bytes)
        guard decoded.encoding == .utf8 || decoded.encoding.isLegacy,
              let declared = declaredXMLEncoding(bytes)
        else { return decoded }
        let legacy: TextEncoding
        switch declared {
        case "iso-8859-1", "latin1", "iso_8859-1", "windows-1252", "cp1252": legacy = .windows1252
        case "macintosh", "macroman", "x-mac-roman": legacy = .macRoman
        default: return decoded
        }
        let text = TextDecoding.decodeLegacyAs(legacy, bytes[...])
        return (Array(text.text.utf8), text.encoding)
    }

    /// The lower-cased `encoding="..."` of an `<?xml ...?>` declaration at the very start.
    static func declaredXMLEncoding(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { bytes -> String? in
            guard bytes.starts(with: xmlDeclaration),
                  let end = bytes.prefix(200).firstIndex(of: UInt8(ascii: ">"))
            else { return nil }
            let declaration = UnsafeBufferPointer(rebasing: bytes[0..<end])
            guard declaration.count > encodingKey.count,
                  let start = (0...(declaration.count - encodingKey.count)).first(where: { at in
                      encodingKey.indices.allSatisfy { declaration[at + $0] == encodingKey[$0] }
                  }),
                  start + encodingKey.count < declaration.count
            else { return nil }
            let value = declaration[(start + encodingKey.count + 1)...].prefix { $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "'") }
            return String(decoding: value, as: UTF8.self).lowercased()
        }
    }

    private static let xmlDeclaration = Array("<?xml".utf8)
    private static let encodingKey = Array("encoding=".utf8)
}
