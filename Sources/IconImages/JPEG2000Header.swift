/// What a JPEG 2000 image declares, read before it is decoded: openjpeg allocates every
/// component of the whole image (four bytes a sample) and its bookkeeping for every tile before a
/// pixel is decoded, so a 1.3 KB file declaring 8000×8000 cost 1.3 GB. Both forms an `.icns`
/// member takes are read: a JP2 file (its `ihdr` box and the SIZ marker of its `jp2c` codestream,
/// which is what openjpeg allocates by) and a bare codestream (its SIZ marker).
struct JPEG2000Header: Equatable {
    var width: Int
    var height: Int
    var components: Int
    var tiles: Int

    /// Samples decoded at most: as many as the RGBA bytes of the largest PNG icon
    /// (`RGBAImage.pixelLimit`), so a four-component image may have a quarter of its pixels
    /// (2048×2048; `bundlefs show` peaks at 116 MB decoding one).
    static let sampleLimit = RGBAImage.pixelLimit
    /// Tiles at most: openjpeg keeps about 17 KB for each (62,500 tiles of a 4000×4000 image took
    /// 1.1 GB); an encoder makes one, or a few dozen.
    static let tileLimit = 1024
    /// The least a tile takes in a codestream: its SOT marker segment (12 bytes) and SOD (2).
    static let bytesPerTile = 14

    static let signatureBox: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let codestreamStart: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]

    /// The header of `data`, refused when decoding it would cost more than the limits allow.
    static func checked(_ data: ArraySlice<UInt8>) throws(IconImageError) -> JPEG2000Header {
        let bytes = Array(data)
        let header = try read(bytes)
        // Each side first, so that the products cannot overflow.
        guard header.width <= sampleLimit, header.height <= sampleLimit, header.width * header.height <= sampleLimit,
              header.width * header.height * header.components <= sampleLimit else {
            throw .tooLarge(width: header.width, height: header.height)
        }
        guard header.tiles <= tileLimit, header.tiles * bytesPerTile <= bytes.count else {
            throw .malformed("a JPEG 2000 image of \(header.tiles) tiles in \(bytes.count) bytes")
        }
        return header
    }

    static func read(_ bytes: [UInt8]) throws(IconImageError) -> JPEG2000Header {
        if bytes.starts(with: codestreamStart) { return try siz(bytes, at: 2) }
        guard bytes.starts(with: signatureBox) else { throw .malformed("not a JPEG 2000 image") }
        // Top-level boxes: the image header is in `jp2h`; openjpeg decodes `jp2c` by its own SIZ.
        var declared: (width: Int, height: Int, components: Int)?
        var offset = 0
        while let box = Box(bytes, at: offset) {
            if box.type == "jp2h" {
                var inner = box.contents.lowerBound
                while let child = Box(bytes, at: inner, end: box.contents.upperBound) {
                    if child.type == "ihdr", child.contents.count >= 14 {
                        let at = child.contents.lowerBound
                        declared = (Int(word(bytes, at + 4)), Int(word(bytes, at)), Int(half(bytes, at + 8)))
                    }
                    inner = child.contents.upperBound
                }
            }
            if box.type == "jp2c" {
                guard let declared else { throw .malformed("a JPEG 2000 file without an image header before its codestream") }
                let stream = Array(bytes[box.contents])
                guard stream.starts(with: codestreamStart) else { throw .malformed("a JPEG 2000 codestream without its SIZ marker") }
                var header = try siz(stream, at: 2)
                // The larger of what the two say: openjpeg reads both.
                header.width = max(header.width, declared.width)
                header.height = max(header.height, declared.height)
                header.components = max(header.components, declared.components)
                return header
            }
            offset = box.contents.upperBound
        }
        throw .malformed("a JPEG 2000 file without a codestream")
    }

    /// The SIZ marker segment at `offset` (its FF51): image and tile grid, components.
    static func siz(_ bytes: [UInt8], at offset: Int) throws(IconImageError) -> JPEG2000Header {
        // FF51, Lsiz, Rsiz, Xsiz, Ysiz, XOsiz, YOsiz, XTsiz, YTsiz, XTOsiz, YTOsiz, Csiz.
        guard offset + 40 <= bytes.count else { throw .malformed("a truncated JPEG 2000 SIZ marker") }
        let field = { (index: Int) in Int(word(bytes, offset + 6 + 4 * index)) }
        let (xsiz, ysiz, xo, yo, xt, yt, xto, yto) = (field(0), field(1), field(2), field(3), field(4), field(5), field(6), field(7))
        let components = Int(half(bytes, offset + 38))
        guard xsiz > xo, ysiz > yo, xt > 0, yt > 0, xto <= xo, yto <= yo, components > 0 else {
            throw .malformed("a JPEG 2000 SIZ marker of no image (\(xsiz)×\(ysiz) from \(xo),\(yo), tiles \(xt)×\(yt))")
        }
        let across = (xsiz - xto + xt - 1) / xt, down = (ysiz - yto + yt - 1) / yt
        let (tiles, overflow) = across.multipliedReportingOverflow(by: down)
        return JPEG2000Header(width: xsiz - xo, height: ysiz - yo, components: components, tiles: overflow ? .max : tiles)
    }

    static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
    static func half(_ bytes: [UInt8], _ at: Int) -> UInt16 { bytes[at..<at + 2].reduce(0) { $0 << 8 | UInt16($1) } }
}

/// One box of a JP2 file: a 32-bit length (1: a 64-bit one follows the type; 0: to the end), a
/// four-letter type, and its contents.
private struct Box {
    var type: String
    var contents: Range<Int>

    init?(_ bytes: [UInt8], at offset: Int, end: Int? = nil) {
        let end = end ?? bytes.count
        guard offset + 8 <= end else { return nil }
        var length = Int(JPEG2000Header.word(bytes, offset))
        var header = 8
        if length == 1 {
            guard offset + 16 <= end else { return nil }
            let long = (UInt64(JPEG2000Header.word(bytes, offset + 8)) << 32) | UInt64(JPEG2000Header.word(bytes, offset + 12))
            guard long <= UInt64(end - offset) else { return nil }
            length = Int(long)
            header = 16
        } else if length == 0 {
            length = end - offset
        }
        guard length >= header, length <= end - offset else { return nil }
        type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        contents = (offset + header)..<(offset + length)
    }
}
