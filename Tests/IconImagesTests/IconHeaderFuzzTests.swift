import Fixtures
import IconImages
import Testing
import TestSupport

/// Icons whose headers declare huge, zero or lying sizes (`Mutator.mutateImageHeader`, which
/// `make fuzz` runs for longer): each is refused or decoded quickly, never decoded at the size
/// it claims.
@Suite struct IconHeaderFuzzTests {
    @Test func mutatedHeadersAreRefusedBeforeTheyCost() {
        let seeds = IconFixtures.fuzzSeeds
        var mutator = Mutator(seed: 0x1C05)
        var slowest = 0.0
        var refused = 0
        for round in 0..<2000 {
            let input = mutator.mutateImageHeader(seeds[round % seeds.count])
            let start = threadSeconds()
            do {
                _ = try IconConverter.png(from: input)
            } catch {
                if error.description.contains("larger than an icon") { refused += 1 }
            }
            slowest = max(slowest, threadSeconds() - start)
        }
        // Within the limits all decode in well under a second of processor time; a blank JPEG 2000 declaring 8000×8000
        // took 3 s and 1.3 GB, a 3 KB uncompressed TIFF declaring 1048576×16 took 3 s.
        #expect(slowest < 1, "slowest \(slowest) s")
        // The mutations reach the limits, or the test would prove nothing.
        #expect(refused > 20, "\(refused) refused as too large")
    }

    /// An uncompressed TIFF whose header declares more samples than the file's bytes.
    @Test func anUncompressedTIFFMustHoldItsSamples() throws {
        var tiff = IconFixtures.tiff([IconFixtures.gradient(side: 16)])
        let fields = ImageHeaderFields.fields(of: tiff)
        try #require(fields.count >= 2)
        for (field, value) in zip(fields.prefix(2), [65535, 256]) {
            for index in 0..<field.width {
                tiff[field.offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (field.bigEndian ? field.width - 1 - index : index)))
            }
        }
        let error = #expect(throws: IconImageError.self) { try IconConverter.png(from: tiff) }
        #expect(error?.description.hasPrefix("an uncompressed 65535×256 TIFF image needs") == true, "\(String(describing: error))")
    }
}
