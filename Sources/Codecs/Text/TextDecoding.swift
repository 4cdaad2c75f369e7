/// The encodings text property lists and `.strings` files come in.
public enum TextEncoding: String, Sendable, Codable {
    case utf8 = "UTF-8"
    case utf8WithBOM = "UTF-8 with BOM"
    case utf16BigEndian = "UTF-16BE"
    case utf16LittleEndian = "UTF-16LE"
    case windows1252 = "Windows-1252"
    case macRoman = "MacRoman"

    /// Whether the bytes were not Unicode and had to be decoded by guessing a legacy encoding.
    public var isLegacy: Bool { self == .windows1252 || self == .macRoman }
}

/// Decodes the bytes of a text file whose encoding is not declared, the way real bundles need:
/// a BOM wins; UTF-16 without a BOM is recognized by its zero bytes; valid UTF-8 is UTF-8; anything
/// else is an 8-bit legacy file (Windows-1252, a superset of Latin-1, or MacRoman), decoded rather
/// than rejected. The text comes out as UTF-8 bytes (`decodeToUTF8`), which is what the parsers read.
public enum TextDecoding {
    /// Text that ASCII covers mostly but has high bytes: Windows-1252 (a superset of Latin-1, which
    /// GNUstep and Windows tools wrote) or MacRoman (old Mac tools). Each high byte is decoded both
    /// ways and scored by its context: a letter inside a word is plausible, an upper-case letter
    /// right after a lower-case one is not, punctuation belongs next to spaces. Ties go to
    /// Windows-1252.
    static func decodeLegacy(_ bytes: ArraySlice<UInt8>) -> (text: String, encoding: TextEncoding) {
        var windowsScore = 0
        var macScore = 0
        let array = Array(bytes)
        for index in array.indices where array[index] >= 0x80 {
            let previous = index > 0 ? array[index - 1] : nil
            let next = index + 1 < array.count ? array[index + 1] : nil
            windowsScore += plausibility(windows1252[Int(array[index] - 0x80)], previous: previous, next: next)
            macScore += plausibility(macRoman[Int(array[index] - 0x80)], previous: previous, next: next)
            if windows1252Undefined.contains(array[index]) { windowsScore -= 5 }
        }
        return decodeLegacyAs(macScore > windowsScore ? .macRoman : .windows1252, bytes)
    }

    static func plausibility(_ scalar: Unicode.Scalar, previous: UInt8?, next: UInt8?) -> Int {
        func isLetter(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
        }
        let lettersAround = (isLetter(previous) ? 1 : 0) + (isLetter(next) ? 1 : 0)
        if scalar.properties.isAlphabetic {
            var score = lettersAround == 2 ? 3 : lettersAround == 1 ? 1 : -1
            if scalar.properties.isUppercase, let previous, previous >= 0x61, previous <= 0x7A { score -= 3 }
            return score
        }
        return lettersAround == 2 ? -3 : 1
    }

    /// Decodes 8-bit text in the given legacy encoding (`.windows1252` or `.macRoman`).
    static func decodeLegacyAs(_ encoding: TextEncoding, _ bytes: ArraySlice<UInt8>) -> (text: String, encoding: TextEncoding) {
        let table = encoding == .macRoman ? macRoman : windows1252
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for byte in bytes {
            scalars.append(byte < 0x80 ? Unicode.Scalar(byte) : table[Int(byte - 0x80)])
        }
        return (String(scalars), encoding)
    }

    /// UTF-16 without a BOM shows as text whose bytes at even (big-endian) or odd (little-endian)
    /// positions are mostly zero. Returns whether it is big-endian, or nil when it is not UTF-16.
    static func unmarkedUTF16(_ bytes: [UInt8]) -> Bool? {
        guard bytes.count >= 4, bytes.count % 2 == 0 else { return nil }
        let sample = bytes.prefix(512)
        var evenZeros = 0, oddZeros = 0
        for (offset, byte) in sample.enumerated() where byte == 0 {
            if offset % 2 == 0 { evenZeros += 1 } else { oddZeros += 1 }
        }
        let pairs = sample.count / 2
        if evenZeros * 10 >= pairs * 7 && oddZeros * 20 <= pairs { return true }
        if oddZeros * 10 >= pairs * 7 && evenZeros * 20 <= pairs { return false }
        return nil
    }

    static let windows1252Undefined: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]

    // 0x80...0xFF of Windows-1252; its five undefined bytes map to the C1 controls, as Latin-1 does.
    static let windows1252: [Unicode.Scalar] = {
        let low: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D, 0x17D, 0x8F,
            0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178,
        ]
        return (low + (0xA0...0xFF).map { UInt32($0) }).map { Unicode.Scalar($0)! }
    }()

    // 0x80...0xFF of Mac OS Roman.
    static let macRoman: [Unicode.Scalar] = ([
        0xC4, 0xC5, 0xC7, 0xC9, 0xD1, 0xD6, 0xDC, 0xE1, 0xE0, 0xE2, 0xE4, 0xE3, 0xE5, 0xE7, 0xE9, 0xE8,
        0xEA, 0xEB, 0xED, 0xEC, 0xEE, 0xEF, 0xF1, 0xF3, 0xF2, 0xF4, 0xF6, 0xF5, 0xFA, 0xF9, 0xFB, 0xFC,
        0x2020, 0xB0, 0xA2, 0xA3, 0xA7, 0x2022, 0xB6, 0xDF, 0xAE, 0xA9, 0x2122, 0xB4, 0xA8, 0x2260, 0xC6, 0xD8,
        0x221E, 0xB1, 0x2264, 0x2265, 0xA5, 0xB5, 0x2202, 0x2211, 0x220F, 0x3C0, 0x222B, 0xAA, 0xBA, 0x3A9, 0xE6, 0xF8,
        0xBF, 0xA1, 0xAC, 0x221A, 0x192, 0x2248, 0x2206, 0xAB, 0xBB, 0x2026, 0xA0, 0xC0, 0xC3, 0xD5, 0x152, 0x153,
        0x2013, 0x2014, 0x201C, 0x201D, 0x2018, 0x2019, 0xF7, 0x25CA, 0xFF, 0x178, 0x2044, 0x20AC, 0x2039, 0x203A, 0xFB01, 0xFB02,
        0x2021, 0xB7, 0x201A, 0x201E, 0x2030, 0xC2, 0xCA, 0xC1, 0xCB, 0xC8, 0xCD, 0xCE, 0xCF, 0xCC, 0xD3, 0xD4,
        0xF8FF, 0xD2, 0xDA, 0xDB, 0xD9, 0x131, 0x2C6, 0x2DC, 0xAF, 0x2D8, 0x2D9, 0x2DA, 0xB8, 0x2DD, 0x2DB, 0x2C7,
    ] as [UInt32]).map { Unicode.Scalar($0)! }
}
