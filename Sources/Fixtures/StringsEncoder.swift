import Codecs

/// The forms real `.strings` files come in.
public enum StringsEncoding: Sendable, CaseIterable {
    case utf8, utf8WithBOM, utf16LittleEndianWithBOM, utf16BigEndianWithBOM, utf16LittleEndianNoBOM
    case latin1, macRoman, binaryPlist, xmlPlist
}

/// Writes `.strings` content the way Xcode, GNUstep and old Mac tools did.
public enum StringsEncoder {
    public static func encode(_ entries: [(String, String)], as encoding: StringsEncoding) -> [UInt8] {
        let dictionary = PlistValue.dictionary(Dictionary(entries.map { ($0.0, PlistValue.string($0.1)) }, uniquingKeysWith: { $1 }))
        switch encoding {
        case .binaryPlist: return PropertyListWriter.binary(dictionary)
        case .xmlPlist: return PropertyListWriter.xml(dictionary)
        default: break
        }
        var text = "/* written by bundlefs fixtures */\n"
        for (key, value) in entries { text += "\(quote(key)) = \(quote(value));\n" }
        switch encoding {
        case .utf8: return Array(text.utf8)
        case .utf8WithBOM: return [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        case .utf16LittleEndianWithBOM: return [0xFF, 0xFE] + utf16(text, bigEndian: false)
        case .utf16BigEndianWithBOM: return [0xFE, 0xFF] + utf16(text, bigEndian: true)
        case .utf16LittleEndianNoBOM: return utf16(text, bigEndian: false)
        case .latin1: return text.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }
        case .macRoman: return macRoman(text)
        case .binaryPlist, .xmlPlist: fatalError("handled above")
        }
    }

    static func quote(_ text: String) -> String {
        "\"" + text.replacingBackslashesAndQuotes + "\""
    }

    static func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        text.utf16.flatMap { unit in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
    }

    /// The few MacRoman letters fixtures use; anything else must be ASCII.
    static func macRoman(_ text: String) -> [UInt8] {
        let table: [Character: UInt8] = ["Ä": 0x80, "Ö": 0x85, "Ü": 0x86, "ä": 0x8A, "ö": 0x9A, "ü": 0x9F, "é": 0x8E, "ß": 0xA7, "©": 0xA9]
        return text.flatMap { character -> [UInt8] in
            if let byte = table[character] { return [byte] }
            precondition(character.isASCII, "no MacRoman byte for \(character) in fixtures")
            return Array(String(character).utf8)
        }
    }
}

extension String {
    var replacingBackslashesAndQuotes: String {
        var out = ""
        for character in self {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
