import BundleModel
import Catalogue
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
        let clock = ContinuousClock()
        let start = clock.now
        try fixture.index()
        #expect(clock.now - start < .seconds(60))
        let bundles = try fixture.catalogue.bundles(matching: BundleQuery(under: FilePath(fixture.tree.path("Bundles"))))
        #expect(bundles.count == count)
        for bundle in bundles where unparsable.contains(bundle.record.path) {
            #expect(bundle.record.errors.contains { $0.hasPrefix("Contents/Info.plist") }, "\(bundle.record.path): \(bundle.record.errors)")
        }
        #expect(unparsable.count > 100 && unparsable.count < count, "the mutations should break some files, not all")
    }
}
