@testable import Catalogue
import BundleModel
import Codecs
import Fixtures
import Foundation
import GRDB
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Launch Services' answers from what a hostile application declares or a damaged catalogue
/// holds: a long conformance chain is answered as the model answers it (the walk is linear:
/// `make bench`'s "a 4,000-step chain" figure), and a claim list naming a bundle id far past any
/// rowid is answered, never an abort.
@Suite struct HostileLaunchServicesTests {
    let temporary = TemporaryDirectory("hostile-launch-services")

    /// One application declaring `steps` types, each conforming to the next, the last to
    /// public.plain-text; every one lists the extension `chain`, and the first also `txt`.
    static func chain(_ steps: Int) -> [String: PlistValue] {
        let declarations: [PlistValue] = (0..<steps).map { step in
            .dictionary([
                "UTTypeIdentifier": .string("org.example.Step\(step)"),
                "UTTypeConformsTo": .array([.string(step + 1 < steps ? "org.example.Step\(step + 1)" : "public.plain-text")]),
                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array(step == 0 ? [.string("chain"), .string("txt")] : [.string("chain")])]),
            ])
        }
        return ["UTExportedTypeDeclarations": .array(declarations)]
    }

    @Test func aLongConformanceChainIsAnsweredAsTheModelAnswersIt() throws {
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.macApp("Apps/Chain.app", identifier: "org.example.chain", info: Self.chain(4_000))
        tree.macApp("Apps/Text.app", identifier: "org.example.text", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("public.text")]), "CFBundleTypeRole": .string("Viewer"),
        ])])])
        tree.macApp("Apps/Last.app", identifier: "org.example.last", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("org.example.Step3999")]), "LSHandlerRank": .string("Owner"),
        ])])])
        let catalogue = try Catalogue(path: FilePath(temporary.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        let applications = try catalogue.bundles(matching: BundleQuery(kind: "application")).map { bundle in
            HandlerRanking.Application(path: bundle.record.key, identifier: bundle.record.identifier, version: bundle.record.version,
                                       claims: LaunchClaim.claims(in: bundle.record.infoDictionary))
        }
        let types = try catalogue.typeDatabase()
        for question in [HandlerRanking.Question.file(extension: "chain"), .file(extension: "txt"), .type("org.example.Step0")] {
            let answered = try catalogue.handlers(of: question)
            let ranked = HandlerRanking.handlers(of: question, among: applications, types: types, role: nil, all: false)
            #expect(answered.map(\.application.path) == ranked.map(\.application.path), "\(question)")
            #expect(answered.map(\.claim) == ranked.map(\.claim), "\(question)")
            #expect(answered.map(\.steps) == ranked.map(\.steps), "\(question)")
            // Both claims reach it: the owner of the chain's last type, 3,999 steps up, and the viewer of public.text.
            #expect(Set(answered.map(\.application.path.lastComponent.string)) == ["Last.app", "Text.app"], "\(question)")
        }
        // Every type the chain declares is reached from its first, with its steps.
        let reached = try catalogue.typeDatabase(reaching: .file(extension: "chain"))
        let steps = Dictionary(uniqueKeysWithValues: reached.conformance(of: "org.example.step0").map { ($0.type, $0.steps) })
        #expect(steps["org.example.step3999"] == 3_999 && steps["public.plain-text"] == 4_000)
    }

    /// Many roots on one chain (every type declares the extension): each type's steps are the
    /// fewest from any root, as a walk per root found them.
    @Test func manyRootsOnOneChainGiveTheFewestSteps() {
        let declarations = (0..<500).map { step in
            TypeDatabase.Declaration(identifier: "t\(step)", conformsTo: [step + 1 < 500 ? "t\(step + 1)" : "public.data"],
                                     extensions: step % 7 == 0 ? ["x"] : [], mimeTypes: [], origin: .exported, declaredBy: FilePath("/A.app"))
        }
        let database = TypeDatabase.standardSystemDatabase.adding(declarations)
        let roots = database.types(forExtension: "x")
        var expected: [String: Int] = [:]
        for root in roots {
            for (type, steps) in database.conformance(of: root) where steps < (expected[type] ?? .max) { expected[type] = steps }
        }
        let walked = database.conformance(ofAny: roots)
        #expect(Dictionary(uniqueKeysWithValues: walked.map { ($0.type, $0.steps) }) == expected)
        #expect(walked.map(\.steps) == walked.map(\.steps).sorted())
    }

    /// A claim list whose entry names bundle id 2^36 (a damaged or hand-edited catalogue): the
    /// answer comes back (that entry's application with it), and the process lives.
    @Test func aBundleIDFarPastAnyRowidIsNoAbort() throws {
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.macApp("Apps/Notes.app", identifier: "org.example.notes", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "CFBundleTypeExtensions": .array([.string("note")]), "CFBundleTypeRole": .string("Editor"),
        ])])])
        let catalogue = try Catalogue(path: FilePath(temporary.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        #expect(try catalogue.handlers(of: .file(extension: "note")).count == 1)
        let stored = try catalogue.read { db in try Data.fetchOne(db, sql: "SELECT entries FROM launch_lists WHERE target = 'note'") }
        let blob = [UInt8](try #require(stored))
        // Format byte, rank order, role, then the bundle id: 1, one LEB128 byte. Now 2^36.
        let idByte: UInt8? = blob.count > 4 ? blob[3] : nil
        try #require(idByte == .some(1))
        let damaged = Data(Array(blob[..<3]) + [0x80, 0x80, 0x80, 0x80, 0x80, 0x02] + Array(blob[4...]))
        try catalogue.write { db in try db.execute(sql: "UPDATE launch_lists SET entries = ? WHERE target = 'note'", arguments: [damaged]) }
        let answer = try catalogue.handlers(of: .file(extension: "note"))
        #expect(answer.map(\.application.path.lastComponent.string) == ["Notes.app"])
        #expect(try catalogue.handlers(of: .file(extension: "note"), limit: 1).count == 1)
    }
}
