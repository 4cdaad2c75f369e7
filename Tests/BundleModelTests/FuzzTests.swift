import BundleModel
import Codecs
import Fixtures
import Testing
import TestSupport

/// Thousands of mutated Info.plists and strings files through the parsers: none may crash, hang
/// or take long. (`make fuzz` runs the same mutations for longer.)
@Suite struct FuzzTests {
    static var seeds: [[UInt8]] {
        var seeds = FuzzSeeds.infoFiles + FuzzSeeds.stringsFiles
        if let tree = Corpus.tree, let root = try? ScanRoot(path: tree) {
            for path in ["Applications/Terminal.app/Resources/Info-gnustep.plist", "Applications/Chess.app/Resources/Info-gnustep.plist",
                         "Applications/Chess.app/Resources/English.lproj/Localizable.strings",
                         "Applications/Affiche.app/Resources/German.lproj/Localizable.strings",
                         "Library/Frameworks/Pantomime.framework/Versions/1.3/Resources/German.lproj/InfoPlist.strings"] {
                if let bytes = try? root.readRegularFile(path, limit: 1 << 20).bytes { seeds.append(bytes) }
            }
        }
        return seeds
    }

    @Test func mutatedInputsNeverCrashOrHang() {
        let seeds = Self.seeds
        var mutator = Mutator(seed: 0xB0_DDE5)
        var slowest = 0.0
        var parsed = 0
        for iteration in 0..<6000 {
            let seed = seeds[iteration % seeds.count]
            let input = mutator.mutate(seed, spliceWith: seeds[(iteration * 7 + 3) % seeds.count])
            let start = threadSeconds()
            if (try? PropertyListReader.read(input)) != nil { parsed += 1 }
            _ = try? StringsFileReader.read(input)
            slowest = max(slowest, threadSeconds() - start)
        }
        #expect(slowest < 0.5, "slowest \(slowest) s of processor time")
        // The mutations must not all be fatal, or the test would only exercise error paths.
        #expect(parsed > 600)
    }

    /// Binary plists whose collections are pointed at one object, from real-looking seeds and from
    /// shapes made to expand: each is read or refused within the budget, quickly.
    @Test func sharedReferenceMutationsStayWithinTheBudget() {
        let seeds = [PropertyListWriter.binary(FuzzSeeds.info)] + SharedReferencePlists.shapes
        var mutator = Mutator(seed: 0x5EED_5A4E)
        var slowest = 0.0
        for iteration in 0..<3000 {
            var input = mutator.shareReferences(seeds[iteration % seeds.count])
            if iteration % 3 == 0 { input = mutator.mutate(input) }
            let start = threadSeconds()
            _ = try? PropertyListReader.read(input)
            slowest = max(slowest, threadSeconds() - start)
        }
        #expect(slowest < 0.5, "slowest \(slowest) s of processor time")
    }
}
