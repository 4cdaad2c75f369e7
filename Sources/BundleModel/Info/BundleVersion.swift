/// Version strings (BUNDLES.md rule 20): kept as written, packed into CFBundleGetVersionNumber's
/// 32-bit form where they fit, and compared component by component for sorting.
public enum BundleVersion {
    public enum Order { case orderedAscending, orderedSame, orderedDescending }

    /// The packed numeric version: major (two BCD digits) in the top byte, minor and bug-fix one
    /// BCD digit each, then the stage (`d` 0x20, `a` 0x40, `b` 0x60, `f`/final 0x80) and a build
    /// number 0...255. `2.1.0b7` → 0x02106007, `1.0` → 0x01008000; what does not fit → 0.
    public static func packed(_ version: String) -> UInt32 {
        let bytes = Array(version.utf8)
        var index = 0
        func digits(max: Int) -> [UInt8]? {
            let start = index
            while index < bytes.count, index - start < max + 1, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            let count = index - start
            guard count >= 1, count <= max else { return nil }
            return bytes[start..<index].map { $0 - 0x30 }
        }
        guard let major = digits(max: 2) else { return 0 }
        var minor: UInt8 = 0, bugFix: UInt8 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard let value = digits(max: 1) else { return 0 }
            minor = value[0]
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard let value = digits(max: 1) else { return 0 }
                bugFix = value[0]
            }
        }
        var stage: UInt32 = 0x80
        var build: UInt32 = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "d"): stage = 0x20
            case UInt8(ascii: "a"): stage = 0x40
            case UInt8(ascii: "b"): stage = 0x60
            case UInt8(ascii: "f"): stage = 0x80
            default: return 0
            }
            index += 1
            guard let value = digits(max: 3) else { return 0 }
            build = value.reduce(0) { $0 * 10 + UInt32($1) }
            guard build <= 255 else { return 0 }
        }
        guard index == bytes.count else { return 0 }
        let majorBCD = major.count == 2 ? UInt32(major[0]) << 4 | UInt32(major[1]) : UInt32(major[0])
        return majorBCD << 24 | UInt32(minor) << 20 | UInt32(bugFix) << 16 | stage << 8 | build
    }

    enum Token: Equatable, Sendable {
        case number(String) // digits without leading zeros
        case text(String)
        case separator
    }

    private static func tokens(_ version: String) -> [Token] {
        // ASCII (every version string seen) is split by bytes; others by characters, as written.
        version.utf8.allSatisfy({ $0 < 0x80 }) ? asciiTokens(version) : characterTokens(version)
    }

    static func characterTokens(_ version: String) -> [Token] {
        var result: [Token] = []
        var current = ""
        var currentIsNumber = false
        func flush() {
            guard !current.isEmpty else { return }
            if currentIsNumber {
                let trimmed = current.drop { $0 == "0" }
                result.append(.number(trimmed.isEmpty ? "0" : String(trimmed)))
            } else {
                result.append(.text(current))
            }
            current = ""
        }
        for character in version {
            if character == "." || character == "-" || character == "_" || character == " " {
                flush()
                result.append(.separator)
            } else if character.isASCIIDigit != currentIsNumber, !current.isEmpty {
                flush()
                currentIsNumber = character.isASCIIDigit
                current.append(character)
            } else {
                currentIsNumber = character.isASCIIDigit
                current.append(character)
            }
        }
        flush()
        return result
    }

    /// `tokens` of an ASCII string, a byte at a time (a character at a time, each one a grapheme
    /// cluster, made splitting hundreds of versions a tenth of an `open-with` answer).
    static func asciiTokens(_ version: String) -> [Token] {
        var result: [Token] = []
        var start = 0
        var currentIsNumber = false
        let bytes = Array(version.utf8)
        func flush(_ end: Int) {
            guard end > start else { return }
            if currentIsNumber {
                var first = start
                while first < end - 1 && bytes[first] == UInt8(ascii: "0") { first += 1 }
                result.append(.number(String(decoding: bytes[first..<end], as: UTF8.self)))
            } else {
                result.append(.text(String(decoding: bytes[start..<end], as: UTF8.self)))
            }
        }
        for (index, byte) in bytes.enumerated() {
            let isDigit = byte >= 0x30 && byte <= 0x39
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: " ") {
                flush(index)
                result.append(.separator)
                start = index + 1
            } else if isDigit != currentIsNumber && index > start {
                flush(index)
                start = index
                currentIsNumber = isDigit
            } else {
                currentIsNumber = isDigit
            }
        }
        flush(bytes.count)
        return result
    }

    /// Compares two version strings component by component, numbers numerically: `1.10` > `1.9`,
    /// `1.0.1` > `1.0`, and a trailing text part marks a pre-release: `1.0` > `1.0b2` > `1.0b1`.
    public static func compare(_ lhs: String, _ rhs: String) -> Order { compare(Key(lhs), Key(rhs)) }

    /// A version string as bytes whose order is `compare`'s (older first): each component a kind
    /// byte (text 0x10 < end 0x20 < separator 0x30 < number 0x40, so that a number outranks
    /// text and a separator, and a version followed by text is older than the version alone, by
    /// more components newer), a number its length in two bytes then its digits without leading
    /// zeros, a text part its bytes then 0x00. The catalogue stores it, so that claims come out
    /// of an index newest first without a version being split when a question is answered.
    public struct Key: Sendable, Hashable {
        public let bytes: [UInt8]
        public init(_ version: String) { bytes = BundleVersion.sortKey(tokens(version)) }
        public init(bytes: [UInt8]) { self.bytes = bytes }
    }

    static func sortKey(_ tokens: [Token]) -> [UInt8] {
        var key: [UInt8] = []
        for token in tokens {
            switch token {
            case let .text(text):
                key.append(0x10)
                key += text.utf8.map { $0 == 0 ? 1 : $0 }
                key.append(0x00)
            case .separator:
                key.append(0x30)
            case let .number(digits):
                let count = min(digits.utf8.count, 0xFFFF)
                key += [0x40, UInt8(count >> 8), UInt8(count & 0xFF)]
                key += digits.utf8.prefix(count)
            }
        }
        key.append(0x20)
        return key
    }

    /// `compare(_:_:)` of two keys: their bytes.
    public static func compare(_ lhsKey: Key, _ rhsKey: Key) -> Order {
        compare(bytes: lhsKey.bytes, rhsKey.bytes)
    }

    public static func compare(bytes lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Order {
        for (a, b) in zip(lhs, rhs) where a != b { return a < b ? .orderedAscending : .orderedDescending }
        return lhs.count == rhs.count ? .orderedSame : lhs.count < rhs.count ? .orderedAscending : .orderedDescending
    }
}
