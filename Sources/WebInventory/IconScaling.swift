import IconImages

/// An icon made the size a page draws it: each output pixel the alpha-weighted average of the
/// source pixels it covers (smaller), or the nearest source pixel (larger), centred in a square.
enum IconScaling {
    static func square(_ image: RGBAImage, side: Int) -> RGBAImage {
        if image.width == side && image.height == side { return image }
        let scale = Double(max(image.width, image.height)) / Double(side)
        let width = max(1, Int((Double(image.width) / scale).rounded())), height = max(1, Int((Double(image.height) / scale).rounded()))
        let left = (side - width) / 2, top = (side - height) / 2
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        for y in 0..<height {
            let y0 = Int(Double(y) * scale), y1 = max(y0 + 1, min(image.height, Int(Double(y + 1) * scale)))
            for x in 0..<width {
                let x0 = Int(Double(x) * scale), x1 = max(x0 + 1, min(image.width, Int(Double(x + 1) * scale)))
                var red = 0, green = 0, blue = 0, alpha = 0, count = 0
                for sy in y0..<min(y1, image.height) {
                    for sx in x0..<min(x1, image.width) {
                        let pixel = image.pixel(x: sx, y: sy)
                        let a = Int(pixel.a)
                        red += Int(pixel.r) * a
                        green += Int(pixel.g) * a
                        blue += Int(pixel.b) * a
                        alpha += a
                        count += 1
                    }
                }
                let at = ((top + y) * side + left + x) * 4
                if alpha > 0 {
                    pixels[at] = UInt8(red / alpha)
                    pixels[at + 1] = UInt8(green / alpha)
                    pixels[at + 2] = UInt8(blue / alpha)
                    pixels[at + 3] = UInt8(alpha / max(count, 1))
                }
            }
        }
        return RGBAImage(width: side, height: side, pixels: pixels)!
    }
}
