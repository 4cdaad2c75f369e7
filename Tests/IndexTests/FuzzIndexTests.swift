import BundleModel
import Catalogue
import Codecs
import Fixtures
import Testing
import TestSupport
import SystemCalls

/// Bundles whose Info.plist and InfoPlist.strings are mutated real files: the index must catalogue
/// every one, with an error where a file could not be read, and never crash or hang.
@Suite struct FuzzIndexTests {
    @Test func everyMutatedBundleIsCataloguedWithItsError() throws {
        let fixture = try IndexFixture()
        let infos = FuzzSeeds.infoFiles
        let strings = FuzzSeeds.stringsFiles
        var mutator = Mutator(seed: 0x5EED_F022)
        let count = 2000
        var unparsable = Set<FilePath>()
        for index in 0..<count {
            let name = "Bundles/B\(index).app"
            let info = mutator.mutate(infos[index % infos.count], spliceWith: infos[(index + 1) % infos.count])
            fixture.tree.file(name + "/Contents/Info.plist", info)
            fixture.tree.file(name + "/Contents/Resources/de.lproj/InfoPlist.strings", mutator.mutate(strings[index % strings.count]))
            if case .dictionary? = (try? PropertyListReader.read(info))?.value {} else { unparsable.insert(FilePath(fixture.tree.path(name))) }
        }
        try fixture.index()
        let bundles = try fixture.catalogue.bundles(matching: BundleQuery(under: FilePath(fixture.tree.path("Bundles"))))
        #expect(bundles.count == count)
        for bundle in bundles where unparsable.contains(bundle.record.key) {
            #expect(bundle.record.errors.contains { $0.hasPrefix("Contents/Info.plist") }, "\(bundle.record.key): \(bundle.record.errors)")
        }
        #expect(unparsable.count > 100 && unparsable.count < count, "the mutations should break some files, not all")
    }

    /// Executables with broken headers (rule 23): every bundle is catalogued, each with the error
    /// its file earns, and what could be read is kept.
    @Test func mutatedExecutablesAreCataloguedWithTheirErrors() throws {
        let fixture = try IndexFixture()
        let seeds = FuzzSeeds.binaries
        var mutator = Mutator(seed: 0xB1_4A21)
        let count = 600
        var expected: [FilePath: BinaryReader.Result] = [:]
        for index in 0..<count {
            let name = "Builds/App\(index).app"
            let seed = seeds[index % seeds.count]
            let bytes = index % 2 == 0 ? mutator.mutateWords(seed, within: 160) : mutator.mutate(seed, spliceWith: seeds[(index + 1) % seeds.count])
            fixture.tree.machOApp(name, identifier: "com.example.fuzz\(index)", executable: bytes)
            expected[FilePath(fixture.tree.path(name))] = BinaryReader.read(MemoryByteSource(bytes), file: FilePath("Contents/MacOS/App\(index)"))
        }
        try fixture.index()
        let bundles = try fixture.catalogue.bundles(matching: BundleQuery(under: FilePath(fixture.tree.path("Builds"))))
        #expect(bundles.count == count)
        var withErrors = 0
        for bundle in bundles {
            let record = bundle.record
            let result = try #require(expected[record.key])
            // The headers as read from memory; the catalogue adds the file they were read from.
            #expect(record.binaries.map { slice in var slice = slice; slice.onDisk = nil; return slice } == result.slices, "\(record.key)")
            #expect(record.binaries.allSatisfy { $0.onDisk?.path == $0.file }, "\(record.key)")
            for error in result.errors {
                #expect(record.errors.contains { $0.hasSuffix(error) }, "\(record.key): \(error) not among \(record.errors)")
            }
            if !result.errors.isEmpty { withErrors += 1 }
        }
        #expect(withErrors > 100 && withErrors < count, "the mutations should break some files, not all: \(withErrors)")
    }
}
