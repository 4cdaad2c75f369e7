/// The members of an Apple icon file: `icns`, a big-endian length, then elements of a four-letter
/// type, a length that counts its own eight-byte header, and data. Reading stops at the first
/// element that does not fit; what came before is kept.
public struct IcnsFile: Sendable {
    public struct Element: Sendable {
        public let type: String
        public let data: ArraySlice<UInt8>
    }

    public let elements: [Element]

    public static let magic = Array("icns".utf8)

    public init(_ bytes: [UInt8]) throws(IconImageError) {
        guard bytes.count >= 8, Array(bytes[0..<4]) == Self.magic else { throw .unknownFormat }
        let end = min(bytes.count, Int(Self.word(bytes, at: 4)))
        var elements: [Element] = []
        var offset = 8
        while offset + 8 <= end {
            let length = Int(Self.word(bytes, at: offset + 4))
            guard length >= 8, length <= end - offset else { break }
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            elements.append(Element(type: type, data: bytes[offset + 8..<offset + length]))
            offset += length
        }
        self.elements = elements
    }

    public func element(_ type: String) -> Element? { elements.first { $0.type == type } }

    static func word(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return bytes[start..<bytes.index(start, offsetBy: 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
