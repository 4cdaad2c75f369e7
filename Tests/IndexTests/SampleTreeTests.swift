import BundleModel
import Catalogue
import Fixtures
import Indexer
import SystemCalls
import Testing
import TestSupport

/// The sample tree in the repository is what `SampleTree` writes, and indexes as documented.
@Suite struct SampleTreeTests {
    @Test func committedSampleMatchesTheGenerator() throws {
        let temporary = TemporaryDirectory("sample")
        SampleTree.write(to: temporary.appending("Sample"))
        let committed = Paths.join(PackagePaths.root, "Sample")
        let differences = try compareTrees(temporary.appending("Sample"), committed)
        #expect(differences.isEmpty, "Sample/ is out of date; run `make sample`: \(differences.prefix(5))")
    }

    @Test func sampleIndexesAsTheReadmeSays() throws {
        let fixture = try IndexFixture()
        let summary = try fixture.index(Paths.join(PackagePaths.root, "Sample"))
        #expect(summary.bundlesUnderRoot == 23)
        #expect(summary.bundlesWithErrors == 4)
        // Oddities/Empty.app only carries the extension: a folder named like a bundle.
        #expect(summary.foldersNamedLikeBundles == 1)
        #expect(summary.claimedExtensions == ["pkgdoc", "sketch"])
        let chess = try fixture.catalogue.bundles(matching: BundleQuery(identifier: "org.example.Chess"))
        #expect(chess.count == 2)
        #expect(chess.first?.record.displayName(for: [LanguageTag("de")!]) == "Schach")
        #expect(chess.first?.record.displayName(for: [LanguageTag("fr-CA")!]) == "Échecs")
        let album = try #require(try fixture.catalogue.bundles(matching: BundleQuery(under: FilePath(Paths.join(PackagePaths.root, "Sample/Documents/Album")))).first)
        #expect(album.record.packageReasons == .finderBit)
    }
}

/// Differences between two trees: names, types, contents, executable bits, symlink targets.
func compareTrees(_ left: String, _ right: String) throws -> [String] {
    var differences: [String] = []
    func entries(_ path: String) -> [FileName: FileType] {
        guard let directory = try? Descriptor.open(path, flags: Descriptor.directoryNoFollow),
              let listing = try? directory.listDirectoryTyped() else { return [:] }
        return Dictionary(uniqueKeysWithValues: listing.map { ($0.name, $0.type) })
    }
    func walk(_ relative: String) throws {
        let a = entries(Paths.join(left, relative)), b = entries(Paths.join(right, relative))
        for name in Set(a.keys).union(b.keys).sorted() {
            let path = relative.isEmpty ? name.string : relative + "/" + name.string
            guard let typeA = a[name], let typeB = b[name], typeA == typeB else {
                differences.append("\(path): present or typed differently"); continue
            }
            switch typeA {
            case .directory: try walk(path)
            case .symlink:
                let targetA = try Descriptor.open(Paths.join(left, relative), flags: O_PATH_DIRECTORY).readLink(name)
                let targetB = try Descriptor.open(Paths.join(right, relative), flags: O_PATH_DIRECTORY).readLink(name)
                if targetA != targetB { differences.append("\(path): link targets differ") }
            default:
                let rootA = try ScanRoot(path: FilePath(left)), rootB = try ScanRoot(path: FilePath(right))
                let (bytesA, statusA) = try rootA.readRegularFile(FilePath(path), limit: 1 << 20)
                let (bytesB, statusB) = try rootB.readRegularFile(FilePath(path), limit: 1 << 20)
                if bytesA != bytesB { differences.append("\(path): contents differ") }
                if (statusA.permissions & 0o100) != (statusB.permissions & 0o100) { differences.append("\(path): executable bit differs") }
            }
        }
    }
    try walk("")
    return differences
}
