import CPng

/// PNG through libpng's simplified API, which reports failures by return value (no longjmp
/// reaches Swift) and never prints.
public enum PNGCodec {
    // png.h's macros, which Swift does not import: PNG_IMAGE_VERSION and PNG_FORMAT_RGBA.
    private static let imageVersion: UInt32 = 1
    private static let formatRGBA: UInt32 = 3

    /// Encodes an image as a PNG file.
    public static func encode(_ image: RGBAImage) throws(IconImageError) -> [UInt8] {
        var header = pngHeader(width: image.width, height: image.height)
        var size = 0
        let stride = Int32(image.width * 4)
        let measured = image.pixels.withUnsafeBytes { pixels in
            png_image_write_to_memory(&header, nil, &size, 0, pixels.baseAddress, stride, nil)
        }
        guard measured != 0, size > 0 else { throw .malformed("libpng could not encode a \(image.width)×\(image.height) image") }
        var bytes = [UInt8](repeating: 0, count: size)
        let written = image.pixels.withUnsafeBytes { pixels in
            bytes.withUnsafeMutableBytes { output in
                png_image_write_to_memory(&header, output.baseAddress, &size, 0, pixels.baseAddress, stride, nil)
            }
        }
        png_image_free(&header)
        guard written != 0 else { throw .malformed("libpng could not encode a \(image.width)×\(image.height) image") }
        return Array(bytes.prefix(size))
    }

    /// A PNG to serve as it is, once libpng has read it whole.
    static func checked(_ bytes: [UInt8]) throws(IconImageError) -> [UInt8] {
        _ = try decode(bytes)
        return bytes
    }

    /// Decodes a PNG file to RGBA.
    public static func decode(_ bytes: [UInt8]) throws(IconImageError) -> RGBAImage {
        // libpng reads the memory until the read finishes: one closure holds it for both steps.
        let result: Result<RGBAImage, IconImageError> = bytes.withUnsafeBytes { input in
            var header = png_image()
            header.version = imageVersion
            guard png_image_begin_read_from_memory(&header, input.baseAddress, input.count) != 0 else {
                return .failure(.malformed("not a readable PNG: \(message(header))"))
            }
            defer { png_image_free(&header) }
            let width = Int(header.width), height = Int(header.height)
            guard width * height <= RGBAImage.pixelLimit else { return .failure(.tooLarge(width: width, height: height)) }
            header.format = formatRGBA
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let finished = pixels.withUnsafeMutableBytes { output in
                png_image_finish_read(&header, nil, output.baseAddress, Int32(width * 4), nil)
            }
            guard finished != 0, let image = RGBAImage(width: width, height: height, pixels: pixels) else {
                return .failure(.malformed("a damaged PNG: \(message(header))"))
            }
            return .success(image)
        }
        return try result.get()
    }

    private static func pngHeader(width: Int, height: Int) -> png_image {
        var header = png_image()
        header.version = imageVersion
        header.width = UInt32(width)
        header.height = UInt32(height)
        header.format = formatRGBA
        return header
    }

    private static func message(_ header: png_image) -> String {
        withUnsafeBytes(of: header.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
