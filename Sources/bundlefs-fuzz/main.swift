// Long fuzzing of the parsers, icon readers, binary header readers and fanotify's event parser (`make fuzz`): the mutations of the test suite, for as long as asked.
// A crash is the finding; the seed and iteration printed before it replay the input.
import Archives
import BundleModel
import CArchive
import Codecs
import Fixtures
import Foundation
import IconImages
import SystemCalls

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String, default value: UInt64) -> UInt64 {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else { return value }
    return UInt64(arguments[arguments.index(after: index)]) ?? value
}
let iterations = option("--iterations", default: 1_000_000)
let seed = option("--seed", default: UInt64(Date().timeIntervalSince1970))
/// A xar (a `.pkg`'s format) of `entries` table entries, as xar writes its header and zlib'd table.
func xar(entries: Int) -> [UInt8] {
    let table = Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xar><toc>" + (0..<entries).map {
        "<file id=\"\($0 + 1)\"><name>m\($0)</name><type>file</type><ea><name>x</name></ea></file>"
    }.joined() + "</toc></xar>\n").utf8)
    var size = compressBound(UInt(table.count))
    var compressed = [UInt8](repeating: 0, count: Int(size))
    _ = compress2(&compressed, &size, table, UInt(table.count), 9)
    func be(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    return Array("xar!".utf8) + be(28, 2) + be(1, 2) + be(UInt64(size), 8) + be(UInt64(table.count), 8) + be(0, 4) + compressed.prefix(Int(size))
}
let packageInfo = Array("""
    <?xml version="1.0" encoding="utf-8"?><pkg-info identifier="org.example.pkg" version="1" install-location="/Applications">
    <bundle-version><bundle id="org.example.app" CFBundleShortVersionString="1" path="./App.app"/></bundle-version></pkg-info>
    """.utf8)
let distribution = Array("""
    <installer-gui-script minSpecVersion="2"><title>Suite</title><product id="org.example.suite" version="1"/></installer-gui-script>
    """.utf8)
var seeds = FuzzSeeds.infoFiles + FuzzSeeds.stringsFiles + IconFixtures.fuzzSeeds + FuzzSeeds.binaries + SharedReferencePlists.shapes
    + [xar(entries: 3), xar(entries: 20_000), packageInfo, distribution, FanotifySeeds.buffer]
let archiveLimits = ArchiveLimits(members: 5_000, uncompressedBytes: 64 << 20, seconds: 5)
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
    _ = XarTableOfContents.refusal(ofBytes: input, limits: archiveLimits, deadline: Clocks.monotonicSeconds() + archiveLimits.seconds)
    _ = input.withUnsafeBytes { Fanotify.parse($0) }
    // An installer's metadata and the lookup of each bundle's payload and component (rule 33).
    let package = InstallerPackage(members: [FilePath("A.pkg/PackageInfo"): input, FilePath("Distribution"): input])
    var records = [FilePath(bytes: input.prefix(64)), FilePath("A.pkg/Payload/App.app"), FilePath("Payload/App.app")].map { member in
        var record = BundleRecord(key: FilePath("/fuzz.pkg").appending(member))
        record.member = member
        return record
    }
    package.place(&records, payloads: [FilePath("A.pkg/Payload"), FilePath("Payload"), FilePath(bytes: input.suffix(16))].filter(InstallerPackage.isPayload))
    let elapsed = clock.now - start
    if elapsed > slowest {
        slowest = elapsed
        if elapsed > .milliseconds(100) { print("iteration \(iteration): slow input (\(elapsed)), \(input.count) bytes") }
    }
    if iteration % 100_000 == 0 && iteration > 0 { print("\(iteration) inputs, slowest \(slowest)") }
}
print("done: \(iterations) inputs without a crash; slowest \(slowest)")
