/// An image as 8-bit RGBA rows, top row first, not premultiplied: what every decoder produces and
/// the PNG encoder takes.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes.
    public let pixels: [UInt8]

    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height * 4 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let at = (y * width + x) * 4
        return (pixels[at], pixels[at + 1], pixels[at + 2], pixels[at + 3])
    }

    /// The most pixels an icon may have (4096 × 4096): more is not an icon, and would cost
    /// hundreds of megabytes to decode.
    public static let pixelLimit = 4096 * 4096
}

/// Why an icon file gave no image. Never fatal: a bundle with a broken icon is still a bundle
/// (rule 22), and its view simply has no `Icon.png`.
public enum IconImageError: Error, Equatable, CustomStringConvertible {
    case unknownFormat
    case malformed(String)
    case tooLarge(width: Int, height: Int)

    public var description: String {
        switch self {
        case .unknownFormat: "not an .icns, TIFF or PNG file"
        case let .malformed(reason): reason
        case let .tooLarge(width, height): "a \(width)×\(height) image is larger than an icon may be"
        }
    }
}
