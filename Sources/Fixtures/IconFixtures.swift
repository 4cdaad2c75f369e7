public import IconImages

/// Icon files written by our own code, for tests and the sample tree: PNGs (through libpng), and
/// `.icns` and TIFF containers assembled here byte by byte, so the readers are tested against
/// files they did not write. The RLE packer and the TIFF writer are independent of libicns and
/// libtiff on purpose.
public enum IconFixtures {
    /// A recognisable image: red rising to the right, green rising downward, blue constant,
    /// opaque except for a transparent top-left corner pixel.
    public static func gradient(side: Int, blue: UInt8 = 0x40) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                pixels += [UInt8(x * 255 / max(1, side - 1)), UInt8(y * 255 / max(1, side - 1)), blue, x == 0 && y == 0 ? 0 : 255]
            }
        }
        return RGBAImage(width: side, height: side, pixels: pixels)!
    }

    /// A disc of one colour on a transparent square: few colours, so it packs small (the sample
    /// tree's icons).
    public static func disc(side: Int, red: UInt8, green: UInt8, blue: UInt8) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(side * side * 4)
        let centre = Double(side - 1) / 2, radius = Double(side) / 2 - 1
        for y in 0..<side {
            for x in 0..<side {
                let inside = (Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre) <= radius * radius
                pixels += inside ? [red, green, blue, 255] : [0, 0, 0, 0]
            }
        }
        return RGBAImage(width: side, height: side, pixels: pixels)!
    }

    public static func png(_ image: RGBAImage) -> [UInt8] {
        // Encoding our own, well-formed images cannot fail.
        (try? PNGCodec.encode(image)) ?? []
    }

    /// An `.icns` of the given members (type, data), in order.
    public static func icns(_ members: [(type: String, data: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for member in members {
            body += Array(member.type.utf8) + bigEndian(UInt32(8 + member.data.count)) + member.data
        }
        return Array("icns".utf8) + bigEndian(UInt32(8 + body.count)) + body
    }

    /// Icon files to mutate (the icon tests and `make fuzz`): every container and member kind the
    /// readers know, small enough to mutate quickly.
    public static let fuzzSeeds: [[UInt8]] = [
        packedIcns(disc(side: 128, red: 10, green: 200, blue: 30)),
        icns([("ic07", png(gradient(side: 32))), ("is32", [0x7F] + [UInt8](repeating: 9, count: 128)), ("s8mk", [UInt8](repeating: 255, count: 256))]),
        tiff([gradient(side: 16), gradient(side: 24)]),
        png(gradient(side: 20)),
    ] + jpeg2000Seeds

    /// The members of an `.icns` this module wrote, to combine them with others.
    public static func icnsMembers(_ icns: [UInt8]) -> [(type: String, data: [UInt8])] {
        var members: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset + 8 <= icns.count {
            let length = icns[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            members.append((String(decoding: icns[offset..<offset + 4], as: UTF8.self), Array(icns[offset + 8..<offset + length])))
            offset += length
        }
        return members
    }

    /// An `.icns` holding only the old 128×128 members: `it32` (RLE-packed RGB) and `t8mk` (alpha).
    public static func packedIcns(_ image: RGBAImage) -> [UInt8] {
        precondition(image.width == 128 && image.height == 128)
        var packed: [UInt8] = [0, 0, 0, 0] // it32's four leading zero bytes
        var mask: [UInt8] = []
        for channel in 0..<3 {
            packed += packBits((0..<image.width * image.height).map { image.pixels[$0 * 4 + channel] })
        }
        for index in 0..<image.width * image.height { mask.append(image.pixels[index * 4 + 3]) }
        return icns([("it32", packed), ("t8mk", mask)])
    }

    /// Apple's icon RLE: a byte below 0x80 is followed by that many plus one literal bytes; a byte
    /// from 0x80 repeats the next byte (that byte − 0x80 + 3) times.
    static func packBits(_ channel: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var literal: [UInt8] = []
        func flushLiteral() {
            for start in stride(from: 0, to: literal.count, by: 128) {
                let chunk = literal[start..<min(literal.count, start + 128)]
                output.append(UInt8(chunk.count - 1))
                output += chunk
            }
            literal.removeAll()
        }
        var index = 0
        while index < channel.count {
            var run = 1
            while index + run < channel.count, channel[index + run] == channel[index], run < 130 { run += 1 }
            if run >= 3 {
                flushLiteral()
                output += [UInt8(0x80 + run - 3), channel[index]]
                index += run
            } else {
                literal.append(channel[index])
                index += 1
            }
        }
        flushLiteral()
        return output
    }

    /// A little-endian, uncompressed RGBA TIFF with one directory per image, in order.
    public static func tiff(_ images: [RGBAImage]) -> [UInt8] {
        var file: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0, 0, 0, 0]
        var linkAt = 4 // where the offset of the next directory goes
        for image in images {
            let pixelsAt = file.count
            file += image.pixels
            if file.count % 2 == 1 { file.append(0) }
            let bitsAt = file.count
            for _ in 0..<4 { file += littleEndian16(8) }
            let directoryAt = file.count
            patch32(&file, at: linkAt, UInt32(directoryAt))
            // (tag, type: 3 SHORT / 4 LONG, count, value or offset), in ascending tag order.
            let entries: [(UInt16, UInt16, UInt32, UInt32)] = [
                (256, 4, 1, UInt32(image.width)), (257, 4, 1, UInt32(image.height)), (258, 3, 4, UInt32(bitsAt)),
                (259, 3, 1, 1), (262, 3, 1, 2), (273, 4, 1, UInt32(pixelsAt)), (277, 3, 1, 4),
                (278, 4, 1, UInt32(image.height)), (279, 4, 1, UInt32(image.pixels.count)), (284, 3, 1, 1), (338, 3, 1, 2),
            ]
            file += littleEndian16(UInt16(entries.count))
            for (tag, type, count, value) in entries {
                file += littleEndian16(tag) + littleEndian16(type) + littleEndian32(count)
                file += type == 3 && count == 1 ? littleEndian16(UInt16(value)) + [0, 0] : littleEndian32(value)
            }
            linkAt = file.count
            file += [0, 0, 0, 0]
        }
        return file
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    private static func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func littleEndian32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    private static func patch32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        bytes.replaceSubrange(offset..<offset + 4, with: littleEndian32(value))
    }
}
