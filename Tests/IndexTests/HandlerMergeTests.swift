import BundleModel
import Catalogue
import Codecs
import Fixtures
import Indexer
import SystemCalls
import Testing
import TestSupport

/// The catalogue answers rule 30 by merging index rows already in the answer's order
/// (`ClaimMerge`); the model ranks applications in memory (`HandlerRanking.handlers`). On a tree
/// of applications with the benchmark's claims and versions that order differently as text and
/// as versions, both must give the same handlers, with the same claims, in the same order, for
/// every question, role and `--all`; and the first `limit` of them.
@Suite struct HandlerMergeTests {
    static let versions = ["1.9", "1.10", "1.0", "1.0b2", "1.0b10", "2.0-rc1", "2.0", "10", "9.99", "1.0.0", ""]

    @Test func theCataloguesMergedAnswersAreTheModelsRanking() throws {
        let directory = TemporaryDirectory("handler-merge")
        let tree = TreeWriter(root: directory.appending("tree"))
        for index in 0..<400 {
            var info = BenchmarkTree.launchServicesKeys(index)
            info["CFBundleVersion"] = .string(Self.versions[index % Self.versions.count])
            // Names that order differently from the applications' indexes, and a shared folder.
            tree.macApp("Apps\(index % 3)/App\(index * 7919 % 400).app", identifier: "org.example.app\(index)", info: info)
        }
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))

        let applications = try catalogue.bundles(matching: BundleQuery(kind: "application")).map { bundle in
            HandlerRanking.Application(path: bundle.record.key, identifier: bundle.record.identifier, version: bundle.record.version,
                                       claims: LaunchClaim.claims(in: bundle.record.infoDictionary))
        }
        #expect(applications.count == 400)
        let types = try catalogue.typeDatabase()
        let questions: [HandlerRanking.Question] = [
            .file(extension: "jpg"), .file(extension: "JPG"), .file(extension: "txt"), .file(extension: "py"), .file(extension: "zzq"),
            .file(extension: nil), .file(extension: BenchmarkTree.sharedFormatExtension(3)), .type("public.image"),
            .type("public.python-script"), .type("public.data"), .type(BenchmarkTree.sharedFormat(0)), .folder,
            .package(extension: "zip"), .scheme("https"), .scheme("HTTP"), .scheme("mailto"), .scheme("app10"),
        ]
        var compared = 0
        for question in questions {
            for role in [nil, LaunchClaim.Role.editor, .viewer, .shell] {
                for all in [false, true] {
                    let merged = try catalogue.handlers(of: question, role: role, all: all)
                    let ranked = HandlerRanking.handlers(of: question, among: applications, types: types, role: role, all: all)
                    #expect(merged.map(\.application.path) == ranked.map(\.application.path), "\(question) \(String(describing: role)) all: \(all)")
                    #expect(merged.map(\.claim) == ranked.map(\.claim), "\(question) \(String(describing: role)) all: \(all)")
                    #expect(merged.map(\.application.version) == ranked.map(\.application.version))
                    let first = try catalogue.handlers(of: question, role: role, all: all, limit: 1)
                    #expect(first.map(\.application.path) == ranked.prefix(1).map(\.application.path))
                    compared += merged.count
                }
            }
        }
        // The questions reach thousands of handlers in all: the comparison is not of empty answers.
        #expect(compared > 2_000)
    }

    /// A name that is not UTF-8 is stored escaped, which orders differently from its bytes: an
    /// answer, and its first handler alone (`limit`), order such names by their bytes.
    @Test func namesThatAreNotUTF8OrderByTheirBytesWithALimitToo() throws {
        let directory = TemporaryDirectory("handler-merge-bytes")
        let tree = TreeWriter(root: directory.appending("tree"))
        let claim: [String: PlistValue] = [
            "CFBundleVersion": .string("1.0"),
            "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("note")])])]),
        ]
        // 0xC0 (not UTF-8) sorts before é (0xC3 0xA9) as bytes, after it escaped.
        let invalid = FileNameCoding.string(from: [0xC0]) + ".app"
        for name in ["é.app", invalid, "z.app"] { tree.macApp("Apps/" + name, identifier: "org.example.\(name.utf8.count)", info: claim) }
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        let all = try catalogue.handlers(of: .file(extension: "note")).map(\.application.path.lastComponent.bytes)
        #expect(all == [Array("z.app".utf8), [0xC0] + Array(".app".utf8), Array("é.app".utf8)])
        for limit in 1...3 {
            #expect(try catalogue.handlers(of: .file(extension: "note"), limit: limit).map(\.application.path.lastComponent.bytes) == Array(all.prefix(limit)))
        }
        #expect(try catalogue.handlers(of: .file(extension: "note"), limit: 0).isEmpty)
    }
}
