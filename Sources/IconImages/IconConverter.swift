import BundleModel
public import SystemCalls

/// An icon file as the PNG the view's `Icon.png` offers (rule 22), whatever it was: `.icns`,
/// TIFF or PNG, told apart by their first bytes rather than by name.
public enum IconConverter {
    /// Icon files larger than this are not read (the largest real `.icns` files are a few MiB).
    public static let fileLimit = 32 << 20

    public static func png(from bytes: [UInt8]) throws(IconImageError) -> [UInt8] {
        switch IconFileFormat(prefix: bytes) {
        case .icns: return try IcnsDecoder.png(from: bytes)
        case .tiff: return try PNGCodec.encode(try TIFFDecoder.image(from: bytes))
        case .png: return try PNGCodec.checked(bytes)
        case nil: throw .unknownFormat
        }
    }

    /// Reads the icon through an open file (the view opens it beneath SOURCE) and converts it.
    public static func png(from file: Descriptor) throws -> [UInt8] {
        try png(from: try file.readRegularFile(limit: fileLimit))
    }
}
