import CTiff

/// The largest image of a TIFF file (GNUstep icons often hold several sizes), through libtiff,
/// which reads from memory here: the file was opened beneath SOURCE by the caller.
enum TIFFDecoder {
    /// libtiff reports through process-wide handlers; silence them once (failures come back as
    /// return values, and a daemon's stderr is no place for them).
    private static let quiet: Void = {
        TIFFSetErrorHandler(nil)
        TIFFSetWarningHandler(nil)
    }()

    static func image(from bytes: [UInt8]) throws(IconImageError) -> RGBAImage {
        _ = quiet
        let stream = MemoryStream(bytes)
        let handle = Unmanaged.passRetained(stream)
        defer { handle.release() }
        guard let tiff = TIFFClientOpen(
            "icon.tiff", "rm", handle.toOpaque(),
            { context, buffer, size in MemoryStream.from(context).read(into: buffer, size: size) },
            { _, _, _ in -1 },
            { context, offset, whence in MemoryStream.from(context).seek(offset, whence: whence) },
            { _ in 0 },
            { context in toff_t(MemoryStream.from(context).bytes.count) },
            { _, _, _ in 0 },
            { _, _, _ in })
        else { throw .malformed("libtiff could not read the file") }
        defer { TIFFClose(tiff) }

        // Every image, the most pixels first and, at one size, the most bits per pixel (GNUstep
        // stores a 2-bit grey image beside the colour one); a damaged one gives way to the next.
        var images: [(directory: tdir_t, width: Int, height: Int, depth: Int, compressed: Bool)] = []
        var directory: tdir_t = 0
        repeat {
            var width: UInt32 = 0, height: UInt32 = 0
            var samples: UInt16 = 1, bits: UInt16 = 1, compression: UInt16 = 1
            if getField(tiff, TIFFTAG_IMAGEWIDTH, &width), getField(tiff, TIFFTAG_IMAGELENGTH, &height), width > 0, height > 0 {
                _ = getField(tiff, TIFFTAG_SAMPLESPERPIXEL, &samples)
                _ = getField(tiff, TIFFTAG_BITSPERSAMPLE, &bits)
                _ = getField(tiff, TIFFTAG_COMPRESSION, &compression)
                images.append((directory, Int(width), Int(height), Int(samples) * Int(bits), compression != 1))
            }
            directory += 1
        } while directory < 64 && TIFFReadDirectory(tiff) == 1
        images.sort { ($0.width * $0.height, $0.depth) > ($1.width * $1.height, $1.depth) }
        guard !images.isEmpty else { throw .malformed("the TIFF file has no image") }
        var lastError = IconImageError.malformed("the TIFF file has no image")
        for image in images {
            guard image.width * image.height <= RGBAImage.pixelLimit else {
                lastError = .tooLarge(width: image.width, height: image.height)
                continue
            }
            // Uncompressed samples take their bytes in the file: a 3 KB file declaring 1048576×16
            // cannot hold them, and decoding its 16 M pixels of nothing took seconds.
            let needed = (image.width * image.depth + 7) / 8 * image.height
            guard image.compressed || needed <= bytes.count else {
                lastError = .malformed("an uncompressed \(image.width)×\(image.height) TIFF image needs \(needed) bytes; the file has \(bytes.count)")
                continue
            }
            guard TIFFSetDirectory(tiff, image.directory) == 1 else { continue }
            var raster = [UInt32](repeating: 0, count: image.width * image.height)
            let read = raster.withUnsafeMutableBufferPointer {
                TIFFReadRGBAImageOriented(tiff, UInt32(image.width), UInt32(image.height), $0.baseAddress, Int32(ORIENTATION_TOPLEFT), 0)
            }
            if read == 1 { return unpremultiplied(raster, width: image.width, height: image.height) }
            // What the RGBA interface refuses (4-bit RGB, planar grey and alpha), sample by sample.
            if let pixels = TIFFSamples.read(tiff, width: image.width, height: image.height, field: { tag, value in
                withVaList([OpaquePointer(value)]) { TIFFVGetField(tiff, UInt32(tag), $0) } == 1
            }) {
                return RGBAImage(width: image.width, height: image.height, pixels: pixels)!
            }
            lastError = .malformed("libtiff could not decode the \(image.width)×\(image.height) image")
        }
        throw lastError
    }

    private static func unpremultiplied(_ raster: [UInt32], width: Int, height: Int) -> RGBAImage {
        // Each pixel is A<<24 | B<<16 | G<<8 | R, premultiplied by alpha: un-premultiply for PNG.
        var pixels = [UInt8](repeating: 0, count: raster.count * 4)
        for (index, value) in raster.enumerated() {
            let alpha = UInt32(value >> 24)
            for channel in 0..<3 {
                let component = (value >> (8 * UInt32(channel))) & 0xFF
                pixels[index * 4 + channel] = UInt8(alpha == 0 ? 0 : min(255, (component * 255 + alpha / 2) / alpha))
            }
            pixels[index * 4 + 3] = UInt8(alpha)
        }
        return RGBAImage(width: width, height: height, pixels: pixels)!
    }

    private static func getField<Value>(_ tiff: OpaquePointer, _ tag: Int32, _ value: inout Value) -> Bool {
        withUnsafeMutablePointer(to: &value) { pointer in
            withVaList([OpaquePointer(pointer)]) { TIFFVGetField(tiff, UInt32(tag), $0) } == 1
        }
    }
}

/// The bytes libtiff reads through its client callbacks.
private final class MemoryStream {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func from(_ context: thandle_t?) -> MemoryStream { Unmanaged<MemoryStream>.fromOpaque(context!).takeUnretainedValue() }

    func read(into buffer: UnsafeMutableRawPointer?, size: tmsize_t) -> tmsize_t {
        guard let buffer, size > 0 else { return 0 }
        let count = min(Int(size), max(0, bytes.count - position))
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return tmsize_t(count)
    }

    func seek(_ offset: toff_t, whence: Int32) -> toff_t {
        let base = switch whence {
        case SEEK_CUR: position
        case SEEK_END: bytes.count
        default: 0
        }
        let target = base + Int(truncatingIfNeeded: Int64(bitPattern: offset))
        guard target >= 0 else { return toff_t(bitPattern: -1) }
        position = target
        return toff_t(target)
    }
}
