import CTiff

/// The images libtiff's RGBA interface refuses but NeXT and GNUstep icons are made of: RGB with
/// 4 bits per sample, grey with alpha stored plane by plane. libtiff still undoes the compression
/// (TIFFReadEncodedStrip); this only spreads the samples of 1 to 16 bits over RGBA bytes.
enum TIFFSamples {
    struct Layout {
        var width: Int
        var height: Int
        var bitsPerSample: Int
        var samplesPerPixel: Int
        /// 0: white is zero; 1: black is zero; 2: RGB.
        var photometric: Int
        var planar: Bool
        var rowsPerStrip: Int
        /// ExtraSamples = 1: colour already multiplied by alpha.
        var associatedAlpha: Bool
    }

    /// The current directory's image, or nil when it is not one of these simple kinds.
    static func read(_ tiff: OpaquePointer, width: Int, height: Int, field: (Int32, UnsafeMutableRawPointer) -> Bool) -> [UInt8]? {
        guard TIFFIsTiled(tiff) == 0 else { return nil }
        var bits: UInt16 = 1, samples: UInt16 = 1, photometric: UInt16 = 1, planar: UInt16 = 1, rowsPerStrip: UInt32 = UInt32(height)
        _ = field(TIFFTAG_BITSPERSAMPLE, &bits)
        _ = field(TIFFTAG_SAMPLESPERPIXEL, &samples)
        _ = field(TIFFTAG_PLANARCONFIG, &planar)
        _ = field(TIFFTAG_ROWSPERSTRIP, &rowsPerStrip)
        guard field(TIFFTAG_PHOTOMETRIC, &photometric) else { return nil }
        var extraCount: UInt16 = 0
        var extraTypes: UnsafeMutablePointer<UInt16>?
        let associated = withUnsafeMutablePointer(to: &extraCount) { count in
            withUnsafeMutablePointer(to: &extraTypes) { types in
                withVaList([OpaquePointer(count), OpaquePointer(types)]) { TIFFVGetField(tiff, UInt32(TIFFTAG_EXTRASAMPLES), $0) } == 1
            }
        } && extraCount > 0 && extraTypes?.pointee == 1
        let layout = Layout(
            width: width, height: height, bitsPerSample: Int(bits), samplesPerPixel: Int(samples), photometric: Int(photometric),
            planar: planar == 2, rowsPerStrip: max(1, min(Int(rowsPerStrip), height)), associatedAlpha: associated)
        guard [1, 2, 4, 8, 16].contains(layout.bitsPerSample), (1...4).contains(layout.samplesPerPixel),
              layout.photometric <= 2, layout.photometric != 2 || layout.samplesPerPixel >= 3
        else { return nil }
        return unpack(tiff, layout)
    }

    private static func unpack(_ tiff: OpaquePointer, _ layout: Layout) -> [UInt8]? {
        let planes = layout.planar ? layout.samplesPerPixel : 1
        let samplesPerRow = layout.width * (layout.planar ? 1 : layout.samplesPerPixel)
        let rowBytes = (samplesPerRow * layout.bitsPerSample + 7) / 8
        let stripsPerPlane = (layout.height + layout.rowsPerStrip - 1) / layout.rowsPerStrip
        let maximum = (1 << layout.bitsPerSample) - 1
        // samples[plane-major or contiguous], scaled to 0...255.
        var values = [[UInt8]](repeating: [UInt8](repeating: 0, count: layout.width * layout.height * (layout.planar ? 1 : layout.samplesPerPixel)), count: planes)
        var strip = [UInt8](repeating: 0, count: rowBytes * layout.rowsPerStrip)
        for plane in 0..<planes {
            for index in 0..<stripsPerPlane {
                let count = strip.withUnsafeMutableBytes { TIFFReadEncodedStrip(tiff, UInt32(plane * stripsPerPlane + index), $0.baseAddress, tmsize_t($0.count)) }
                guard count > 0 else { return nil }
                let firstRow = index * layout.rowsPerStrip
                for row in 0..<min(layout.rowsPerStrip, layout.height - firstRow) {
                    for column in 0..<samplesPerRow {
                        let value: Int
                        if layout.bitsPerSample == 16 {
                            let at = row * rowBytes + column * 2
                            value = Int(UInt16(strip[at]) | UInt16(strip[at + 1]) << 8) >> 8 // native order: little-endian here
                        } else {
                            let bit = row * rowBytes * 8 + column * layout.bitsPerSample
                            let byte = Int(strip[bit / 8])
                            let raw = (byte >> (8 - layout.bitsPerSample - bit % 8)) & maximum
                            value = raw * 255 / maximum
                        }
                        values[plane][(firstRow + row) * samplesPerRow + column] = UInt8(value)
                    }
                }
            }
        }
        func sample(_ pixel: Int, _ channel: Int) -> UInt8 {
            layout.planar ? values[channel][pixel] : values[0][pixel * layout.samplesPerPixel + channel]
        }
        var pixels = [UInt8](repeating: 0, count: layout.width * layout.height * 4)
        let colourChannels = layout.photometric == 2 ? 3 : 1
        for pixel in 0..<layout.width * layout.height {
            let alpha = layout.samplesPerPixel > colourChannels ? Int(sample(pixel, colourChannels)) : 255
            for channel in 0..<3 {
                var value = Int(sample(pixel, colourChannels == 3 ? channel : 0))
                if layout.photometric == 0 { value = 255 - value }
                if layout.associatedAlpha { value = alpha == 0 ? 0 : min(255, (value * 255 + alpha / 2) / alpha) }
                pixels[pixel * 4 + channel] = UInt8(value)
            }
            pixels[pixel * 4 + 3] = UInt8(alpha)
        }
        return pixels
    }
}
