/// The size a PNG declares in its IHDR chunk: enough to pick the largest of several icon files
/// without decoding any (rule 21).
public enum PNGHeader {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Width and height, or nil when the bytes do not start like a PNG.
    public static func size(_ bytes: some RandomAccessCollection<UInt8>) -> (width: UInt32, height: UInt32)? {
        let prefix = Array(bytes.prefix(24))
        guard prefix.count == 24, Array(prefix[0..<8]) == signature, Array(prefix[12..<16]) == Array("IHDR".utf8) else { return nil }
        func word(_ at: Int) -> UInt32 { prefix[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let width = word(16), height = word(20)
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }
}
