// Long fuzzing of the parsers, icon readers and binary header readers (`make fuzz`): the mutations of the test suite, for as long as asked.
// A crash is the finding; the seed and iteration printed before it replay the input.
import BundleModel
import Codecs
import Fixtures
import Foundation
import IconImages

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String, default value: UInt64) -> UInt64 {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else { return value }
    return UInt64(arguments[arguments.index(after: index)]) ?? value
}
let iterations = option("--iterations", default: 1_000_000)
let seed = option("--seed", default: UInt64(Date().timeIntervalSince1970))
var seeds = FuzzSeeds.infoFiles + FuzzSeeds.stringsFiles + IconFixtures.fuzzSeeds + FuzzSeeds.binaries + SharedReferencePlists.shapes
for path in arguments where !path.hasPrefix("--") && FileManager.default.fileExists(atPath: path) {
    if let data = FileManager.default.contents(atPath: path) { seeds.append(Array(data)) }
}
print("fuzzing with seed \(seed), \(iterations) iterations, \(seeds.count) seed files")
var mutator = Mutator(seed: seed)
let clock = ContinuousClock()
var slowest = Duration.zero
for iteration in 0..<iterations {
    let index = Int(iteration % UInt64(seeds.count))
    // Every other input has header words broken (counts, sizes, offsets) rather than bytes; every
    // third of those, an image's declared sizes (icns lengths, JPEG 2000 SIZ/ihdr, PNG IHDR, TIFF); every
    // fifth input instead, a binary plist seed with a collection pointed at one shared object.
    var input = switch iteration % 6 {
    case 0: mutator.mutateImageHeader(seeds[index])
    case 2, 4: mutator.mutateWords(seeds[index], within: 256)
    default: mutator.mutate(seeds[index], spliceWith: seeds[(index + 1) % seeds.count])
    }
    if iteration % 5 == 1 { input = mutator.shareReferences(seeds[index]) }
    let start = clock.now
    _ = try? PropertyListReader.read(input)
    _ = try? StringsFileReader.read(input)
    _ = try? IconConverter.png(from: input)
    _ = BinaryReader.read(MemoryByteSource(input), file: "fuzz", budget: 1 << 20)
    let elapsed = clock.now - start
    if elapsed > slowest {
        slowest = elapsed
        if elapsed > .milliseconds(100) { print("iteration \(iteration): slow input (\(elapsed)), \(input.count) bytes") }
    }
    if iteration % 100_000 == 0 && iteration > 0 { print("\(iteration) inputs, slowest \(slowest)") }
}
print("done: \(iterations) inputs without a crash; slowest \(slowest)")
