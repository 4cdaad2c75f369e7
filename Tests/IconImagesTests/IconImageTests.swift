import CIcns
import Fixtures
import IconImages
import SystemCalls
import Testing
import TestSupport

/// BUNDLES.md rule 22: the largest representation an icon file holds, as PNG. The files are
/// written by our own code (Fixtures/IconFixtures.swift); results are read back with libpng and
/// checked for size and pixels.
@Suite struct IconImageTests {
    /// Pixels far from the transparent corner, where every encoding keeps the colour exactly.
    func expectGradient(_ image: RGBAImage, side: Int, blue: UInt8 = 0x40, tolerance: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.width == side && image.height == side, sourceLocation: sourceLocation)
        guard image.width == side, image.height == side else { return }
        let expected = IconFixtures.gradient(side: side, blue: blue)
        for (x, y) in [(side - 1, 0), (0, side - 1), (side / 2, side / 3), (side - 1, side - 1), (1, 1)] {
            let got = image.pixel(x: x, y: y), want = expected.pixel(x: x, y: y)
            let difference = [Int(got.r) - Int(want.r), Int(got.g) - Int(want.g), Int(got.b) - Int(want.b), Int(got.a) - Int(want.a)].map(abs).max()!
            #expect(difference <= tolerance, "(\(x), \(y)): \(got) is not \(want)", sourceLocation: sourceLocation)
        }
        #expect(image.pixel(x: 0, y: 0).a == 0, "the transparent corner", sourceLocation: sourceLocation)
    }

    @Test func icnsWithPNGMembersGivesTheLargestAsItIs() throws {
        let large = IconFixtures.png(IconFixtures.gradient(side: 512))
        let icns = IconFixtures.icns([
            ("ic07", IconFixtures.png(IconFixtures.gradient(side: 128, blue: 1))),
            ("ic09", large),
            ("info", Array("<plist/>".utf8)),
        ] + [("it32", [0, 0, 0, 0]), ("t8mk", [UInt8](repeating: 255, count: 128 * 128))])
        let png = try IconConverter.png(from: icns)
        #expect(png == large)
        expectGradient(try PNGCodec.decode(png), side: 512)
    }

    @Test func icnsWithOnlyPackedMembersIsDecoded() throws {
        let icns = IconFixtures.packedIcns(IconFixtures.gradient(side: 128))
        let image = try PNGCodec.decode(try IconConverter.png(from: icns))
        expectGradient(image, side: 128)
        // Every pixel, not just a few: the RLE runs and literals all land where they belong.
        let expected = IconFixtures.gradient(side: 128)
        #expect(image.pixels.enumerated().filter { $0.offset >= 4 }.allSatisfy { expected.pixels[$0.offset] == $0.element })
    }

    @Test func icnsWithAJPEG2000MemberIsDecoded() throws {
        // A JPEG 2000 member made by libicns' own encoder (openjpeg), the way old Icon Composer did.
        var source = icns_image_t()
        #expect(icns_init_image(256, 256, 4, 8, &source) == 0)
        defer { icns_free_image(&source) }
        let gradient = IconFixtures.gradient(side: 256)
        for index in 0..<gradient.pixels.count { source.imageData[index] = gradient.pixels[index] }
        var size: icns_size_t = 0
        var data: UnsafeMutablePointer<icns_byte_t>?
        try #require(icns_image_to_jp2(&source, &size, &data) == 0 && data != nil, "libicns was built without JPEG 2000")
        defer { free(data) }
        let jp2 = Array(UnsafeBufferPointer(start: data, count: Int(size)))
        let png = try IconConverter.png(from: IconFixtures.icns([("ic08", jp2)]))
        expectGradient(try PNGCodec.decode(png), side: 256, tolerance: 8)
    }

    @Test func tiffGivesItsLargestImage() throws {
        let tiff = IconFixtures.tiff([IconFixtures.gradient(side: 32, blue: 9), IconFixtures.gradient(side: 64), IconFixtures.gradient(side: 48, blue: 9)])
        let image = try PNGCodec.decode(try IconConverter.png(from: tiff))
        expectGradient(image, side: 64)
    }

    @Test func aPNGIsServedAsItIs() throws {
        let png = IconFixtures.png(IconFixtures.gradient(side: 60))
        #expect(try IconConverter.png(from: png) == png)
    }

    @Test func aDamagedLargestMemberFallsBackToTheNext() throws {
        var damaged = IconFixtures.png(IconFixtures.gradient(side: 1024))
        damaged.replaceSubrange(60..<damaged.count, with: [UInt8](repeating: 0xAB, count: damaged.count - 60))
        let icns = IconFixtures.icns([("ic10", damaged), ("ic08", IconFixtures.png(IconFixtures.gradient(side: 256)))])
        expectGradient(try PNGCodec.decode(try IconConverter.png(from: icns)), side: 256)
    }

    static let brokenFiles: [(String, [UInt8])] = {
        let icnsMagic: [UInt8] = Array("icns".utf8)
        var files: [(String, [UInt8])] = [("empty", []), ("text", Array("not an icon at all".utf8))]
        files.append(("icns header only", icnsMagic + [0, 0, 0, 8]))
        files.append(("icns with a lying length", icnsMagic + [0xFF, 0xFF, 0xFF, 0xFF] + Array("ic09".utf8) + [0x7F, 0, 0, 0]))
        files.append(("it32 without its mask", IconFixtures.icns([("it32", [0, 0, 0, 0, 0x7F])])))
        files.append(("t8mk of the wrong size", IconFixtures.icns([("it32", [0, 0, 0, 0]), ("t8mk", [1, 2, 3])])))
        files.append(("TIFF header only", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]))
        return files
    }()

    @Test(arguments: brokenFiles)
    func brokenFilesAreErrorsNotCrashes(name: String, bytes: [UInt8]) {
        #expect(throws: IconImageError.self, "\(name)") { try IconConverter.png(from: bytes) }
    }

    @Test func mutatedFilesNeverCrash() {
        // The fuzzer's mutations (flips, splices, truncations...), a few thousand here; `make fuzz`
        // runs them for as long as asked.
        let seeds = IconFixtures.fuzzSeeds
        var mutator = Mutator(seed: 22)
        var decoded = 0
        for round in 0..<3000 {
            let input = mutator.mutate(seeds[round % seeds.count], spliceWith: seeds[(round + 1) % seeds.count])
            if let png = try? IconConverter.png(from: input), (try? PNGCodec.decode(png)) != nil { decoded += 1 }
        }
        // Some mutations miss everything that matters; the rest fail cleanly.
        #expect(decoded > 0 && decoded < 3000)
    }

    @Test func realCorpusIconsConvertOrFailCleanly() throws {
        guard let tree = Corpus.tree else {
            print("skipped: \(Corpus.skipMessage)")
            return
        }
        // The corpus cuts files to 4 KiB: small TIFFs are whole, larger ones are truncated.
        let chess = try fileBytes(Paths.join(tree, "Applications/Chess.app/Resources/ChessApp.tiff"))
        let image = try PNGCodec.decode(try IconConverter.png(from: chess))
        #expect(image.width == 48 && image.height == 48)
        #expect(image.pixels.contains { $0 != 0 })
        for icon in ["Applications/Terminal.app/Resources/Terminal.tiff", "Applications/Chess.app/Resources/chess.icns",
                     "Applications/SystemPreferences.app/Resources/SystemPreferences.tiff"] {
            let bytes = try fileBytes(Paths.join(tree, icon))
            if let png = try? IconConverter.png(from: bytes) { #expect((try? PNGCodec.decode(png)) != nil, "\(icon)") }
        }
    }
}

func fileBytes(_ path: String) throws -> [UInt8] {
    try Descriptor.open(FilePath(path), flags: Descriptor.readOnly).readRegularFile(limit: 64 << 20)
}
