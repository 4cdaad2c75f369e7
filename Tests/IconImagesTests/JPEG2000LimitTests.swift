import Fixtures
import Foundation
@testable import IconImages
import SystemCalls
import Testing
import TestSupport

/// A JPEG 2000 member is judged by what its header declares before openjpeg allocates for it
/// (rule 22; RGBAImage.pixelLimit). The images are openjpeg's own (`opj_compress`, Debian's
/// libopenjp2-tools); the huge ones declare their size as a 1.3 KB file encoded at 8000×8000 does,
/// since encoding one for real costs opj_compress 1.7 GB.
@Suite struct JPEG2000LimitTests {
    let temporary = TemporaryDirectory("jpeg2000")

    /// A transparent 64×64 RGBA image (raw zeros) through `opj_compress`: its packets are empty, so
    /// openjpeg decodes it at whatever size its header is made to declare, as a JP2 file (`jp2`) or a bare codestream (`j2k`).
    func encoded(_ suffix: String) throws -> [UInt8] {
        let raw = temporary.appending("blank.raw"), output = temporary.appending("blank.\(suffix)")
        try Data(count: 64 * 64 * 4).write(to: URL(fileURLWithPath: raw))
        let made = try Subprocess.run("/usr/bin/opj_compress", ["-i", raw, "-F", "64,64,4,8,u", "-o", output])
        try #require(made.status == 0, "\(made)")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// `bytes` declaring `width`×`height` in its codestream's SIZ (and its JP2 `ihdr`), with tiles
    /// of `tile`×`tile` (the whole image when nil).
    static func declaring(_ bytes: [UInt8], width: UInt32, height: UInt32, tile: UInt32? = nil) -> [UInt8] {
        var bytes = bytes
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
        }
        if let ihdr = bytes.firstRange(of: Array("ihdr".utf8))?.upperBound {
            put(height, at: ihdr)
            put(width, at: ihdr + 4)
        }
        let siz = bytes.firstRange(of: [0xFF, 0x4F, 0xFF, 0x51])!.lowerBound + 2
        put(width, at: siz + 6)
        put(height, at: siz + 10)
        put(tile ?? width, at: siz + 22)
        put(tile ?? height, at: siz + 26)
        return bytes
    }

    @Test(arguments: ["jp2", "j2k"])
    func openjpegsOwnHeaderIsReadAsItsEncoderWroteIt(suffix: String) throws {
        let header = try JPEG2000Header.checked(try encoded(suffix)[...])
        #expect(header == JPEG2000Header(width: 64, height: 64, components: 4, tiles: 1))
    }

    /// 8000×8000 cost 1.3 GB to decode and be refused; 16000×16000 took the process down.
    @Test(arguments: ["jp2", "j2k"], [8000, 16000, 1 << 31])
    func aHugeDeclaredSizeIsRefusedBeforeDecoding(suffix: String, side: Int) throws {
        let huge = Self.declaring(try encoded(suffix), width: UInt32(side), height: UInt32(side))
        let error = #expect(throws: IconImageError.self) { try IconConverter.png(from: IconFixtures.icns([("ic10", huge)])) }
        #expect(error?.description == "ic10: a \(side)×\(side) image is larger than an icon may be")
    }

    /// Within the pixels, but in tiles of 16×16: openjpeg kept 1.1 GB of bookkeeping for 62,500 of
    /// them (a 4000×4000 image), in a 300-byte file that cannot hold one tile-part each.
    @Test func tilesTheBytesCannotHoldAreRefused() throws {
        let tiled = Self.declaring(try encoded("jp2"), width: 2048, height: 2048, tile: 16)
        let error = #expect(throws: IconImageError.self) { try IconConverter.png(from: IconFixtures.icns([("ic10", tiled)])) }
        #expect(error?.description.contains("ic10: a JPEG 2000 image of 16384 tiles in") == true, "\(String(describing: error))")
    }

    /// At the limit (2048×2048 in four components) an image passes on to openjpeg.
    @Test func anImageAtTheLimitPasses() throws {
        let header = try JPEG2000Header.checked(Self.declaring(try encoded("jp2"), width: 2048, height: 2048)[...])
        #expect(header.width * header.height * header.components == JPEG2000Header.sampleLimit)
    }
}
