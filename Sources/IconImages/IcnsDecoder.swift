import BundleModel
import CIcns
import Glibc

/// The largest representation an `.icns` holds, as PNG (rule 22): a PNG member as it is, a JPEG
/// 2000 member or an RLE-packed ARGB member with its mask decoded by libicns and encoded as PNG.
/// When the largest is damaged, the next largest is tried.
enum IcnsDecoder {
    enum Encoding { case png, jpeg2000, packed(mask: IcnsFile.Element) }

    struct Candidate {
        var element: IcnsFile.Element
        var side: Int
        var encoding: Encoding
    }

    /// Members holding PNG or JPEG 2000, by the side of the image their type stands for.
    static let compressedTypes: [String: Int] = [
        "icp4": 16, "icp5": 32, "icp6": 64, "ic07": 128, "ic08": 256, "ic09": 512, "ic10": 1024,
        "ic11": 32, "ic12": 64, "ic13": 256, "ic14": 512, "ic04": 16, "ic05": 32,
    ]
    /// The RLE-packed 24-bit members and their 8-bit masks.
    static let packedTypes: [String: (side: Int, mask: String)] = [
        "it32": (128, "t8mk"), "ih32": (48, "h8mk"), "il32": (32, "l8mk"), "is32": (16, "s8mk"),
    ]

    static func png(from bytes: [UInt8]) throws(IconImageError) -> [UInt8] {
        let file = try IcnsFile(bytes)
        var candidates: [Candidate] = []
        for element in file.elements {
            if let side = compressedTypes[element.type] {
                if let size = PNGHeader.size(element.data) {
                    candidates.append(Candidate(element: element, side: Int(max(size.width, size.height)), encoding: .png))
                } else if isJPEG2000(element.data) {
                    candidates.append(Candidate(element: element, side: side, encoding: .jpeg2000))
                }
            } else if let packed = packedTypes[element.type], let mask = file.element(packed.mask) {
                candidates.append(Candidate(element: element, side: packed.side, encoding: .packed(mask: mask)))
            }
        }
        // Largest first; at one size, a PNG needs no conversion.
        candidates.sort { ($0.side, $0.isPNG ? 1 : 0) > ($1.side, $1.isPNG ? 1 : 0) }
        var lastError = IconImageError.malformed("the icon file has no image this reader knows (PNG, JPEG 2000, it32/ih32/il32/is32 with a mask)")
        for candidate in candidates {
            do {
                switch candidate.encoding {
                case .png:
                    return try PNGCodec.checked(Array(candidate.element.data))
                case .jpeg2000:
                    return try PNGCodec.encode(try decodeJPEG2000(candidate.element.data))
                case let .packed(mask):
                    return try PNGCodec.encode(try decodePacked(candidate.element, mask: mask, side: candidate.side))
                }
            } catch {
                lastError = .malformed("\(candidate.element.type): \(error)")
            }
        }
        throw lastError
    }

    static func isJPEG2000(_ data: ArraySlice<UInt8>) -> Bool {
        let box: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20]
        let codestream: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]
        return data.starts(with: box) || data.starts(with: codestream)
    }

    private static let quiet: Void = icns_set_print_errors(0)

    /// libicns sees only a family rebuilt from the two members it decodes, never the rest of the file.
    private static func decodePacked(_ element: IcnsFile.Element, mask: IcnsFile.Element, side: Int) throws(IconImageError) -> RGBAImage {
        _ = quiet
        guard mask.data.count == side * side else { throw .malformed("\(mask.type) has \(mask.data.count) bytes, not \(side * side)") }
        var family: [UInt8] = IcnsFile.magic + bigEndian(UInt32(8 + 16 + element.data.count + mask.data.count))
        for member in [element, mask] {
            family += Array(member.type.utf8) + bigEndian(UInt32(8 + member.data.count)) + member.data
        }
        var familyPointer: UnsafeMutablePointer<icns_family_t>?
        let imported = family.withUnsafeMutableBytes { icns_import_family_data(icns_size_t($0.count), $0.baseAddress?.assumingMemoryBound(to: icns_byte_t.self), &familyPointer) }
        guard imported == 0, let familyPointer else { throw .malformed("libicns could not read \(element.type)") }
        defer { free(familyPointer) }
        var image = icns_image_t()
        let type = element.type.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard icns_get_image32_with_mask_from_family(familyPointer, type, &image) == 0 else {
            throw .malformed("libicns could not decode \(element.type) with \(mask.type)")
        }
        defer { icns_free_image(&image) }
        return try rgba(image)
    }

    private static func decodeJPEG2000(_ data: ArraySlice<UInt8>) throws(IconImageError) -> RGBAImage {
        _ = quiet
        _ = try JPEG2000Header.checked(data)
        var bytes = Array(data)
        var image = icns_image_t()
        let status = bytes.withUnsafeMutableBytes { icns_jp2_to_image(icns_size_t($0.count), $0.baseAddress?.assumingMemoryBound(to: icns_byte_t.self), &image) }
        guard status == 0 else { throw .malformed("libicns (openjpeg) could not decode the JPEG 2000 image") }
        defer { icns_free_image(&image) }
        return try rgba(image)
    }

    /// libicns gives 32-bit images as RGBA bytes.
    private static func rgba(_ image: icns_image_t) throws(IconImageError) -> RGBAImage {
        let width = Int(image.imageWidth), height = Int(image.imageHeight)
        guard image.imageChannels == 4, image.imagePixelDepth == 8 || image.imagePixelDepth == 32, let data = image.imageData,
              width > 0, height > 0, width * height <= RGBAImage.pixelLimit, Int(image.imageDataSize) >= width * height * 4,
              let result = RGBAImage(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: data, count: width * height * 4)))
        else { throw .malformed("libicns gave a \(width)×\(height) image with \(image.imageChannels) channels") }
        return result
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
}

extension IcnsDecoder.Candidate {
    var isPNG: Bool { if case .png = encoding { true } else { false } }
}
