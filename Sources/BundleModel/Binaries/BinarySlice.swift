public import SystemCalls

/// What the headers of one executable image say (rule 24): a Mach-O slice (a thin file is one
/// slice, a universal file one per architecture) or an ELF file. Read by `BinaryReader`.
public struct BinarySlice: Sendable, Hashable {
    public enum Format: String, Sendable {
        case machO = "mach-o"
        case elf
    }

    /// Whether the slice carries a code signature, and whether it could be read.
    public enum Signature: String, Sendable {
        case none
        case read
        case unreadable
    }

    /// The file, relative to the bundle (so a renamed bundle needs no rewrite).
    public var file: FilePath
    public var format: Format
    /// `x86_64`, `arm64`, `arm64e`, `i386`, `ppc`, ... (Mach-O); `x86_64`, `aarch64`, ... (ELF).
    public var arch: String
    /// Mach-O: `execute`, `dylib`, `bundle`, `dsym`, ...; ELF: `executable`, `shared-object`, ...
    public var fileType: String
    /// Mach-O: the `LC_UUID` in upper-case 8-4-4-4-12 form; ELF: the GNU build-id in lower-case hex.
    public var uuid: String?
    public var platform: String?
    public var minOS: String?
    public var sdk: String?
    public var signature: Signature = .none
    public var signingIdentifier: String?
    public var teamIdentifier: String?

    public init(file: FilePath, format: Format, arch: String, fileType: String) {
        self.file = file
        self.format = format
        self.arch = arch
        self.fileType = fileType
    }

    /// The UUID as lookups compare it (rule 25): lower-case hex digits, no hyphens.
    public var uuidKey: String? { uuid.flatMap(Self.uuidKey) }

    /// A UUID or build-id as typed by a user or a crash report, made comparable: nil when it is
    /// not an even number (at least 8) of hex digits once hyphens are dropped.
    public static func uuidKey(_ text: String) -> String? {
        var digits = ""
        digits.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars where scalar != "-" {
            guard scalar.properties.isASCIIHexDigit else { return nil }
            digits.unicodeScalars.append(scalar)
        }
        guard digits.count >= 8, digits.count % 2 == 0 else { return nil }
        return digits.lowercased()
    }

    /// 16 bytes in the canonical form: `1B4E28BA-2FA1-11D2-883F-B9A761BDE3FB`.
    public static func canonicalUUID(_ bytes: some Collection<UInt8>) -> String {
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text += "-" }
            text += Hex.byte(byte, uppercase: true)
        }
        return text
    }

    /// The canonical form of a lookup key of 32 hex digits (a Mach-O UUID); other keys (ELF
    /// build-ids) are shown as they are.
    public static func displayUUID(key: String) -> String {
        guard key.utf8.count == 32 else { return key }
        var bytes: [UInt8] = []
        var iterator = key.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(Hex.value(high) << 4 | Hex.value(low))
        }
        return canonicalUUID(bytes)
    }
}

/// Hex digits, both ways.
enum Hex {
    static func byte(_ byte: UInt8, uppercase: Bool) -> String {
        let digits: [Character] = uppercase ? Array("0123456789ABCDEF") : Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    static func string(_ bytes: some Collection<UInt8>) -> String { bytes.map { byte($0, uppercase: false) }.joined() }

    /// The value of one ASCII hex digit (0 for anything else; callers check digits first).
    static func value(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}
