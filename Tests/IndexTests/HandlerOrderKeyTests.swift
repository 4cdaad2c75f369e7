import BundleModel
@testable import Catalogue
import Codecs
import Fixtures
import Foundation
import GRDB
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Rule 30's order is one key (`HandlerOrderKey`), which the in-memory ranking, the catalogue's
/// lists as written and their merge all compare. Each is held here to a reference written from
/// BUNDLES.md rule 30 as it reads, over randomized claims, versions, hosts and names, among them
/// names that are not UTF-8 (held escaped, which orders otherwise than their bytes: the merge
/// sorted its answer again for them).
@Suite struct HandlerOrderKeyTests {
    /// Rule 30 read aloud: specific before everything, the rank, fewer steps (255 at most), the
    /// higher version (rule 20), the path's bytes, the host's bytes.
    static func referencePrecedes(_ a: HandlerRanking.Handler, _ b: HandlerRanking.Handler) -> Bool {
        if a.isEverything != b.isEverything { return !a.isEverything }
        if a.claim.rank != b.claim.rank { return a.claim.rank < b.claim.rank }
        if min(a.steps, 255) != min(b.steps, 255) { return min(a.steps, 255) < min(b.steps, 255) }
        switch BundleVersion.compare(a.application.version ?? "", b.application.version ?? "") {
        case .orderedDescending: return true
        case .orderedAscending: return false
        case .orderedSame: break
        }
        let (x, y) = (a.application.path.bytes, b.application.path.bytes)
        if x != y { return x.lexicographicallyPrecedes(y) }
        return Array((a.application.host ?? "").utf8).lexicographicallyPrecedes(Array((b.application.host ?? "").utf8))
    }

    /// Pieces of names: ASCII, é, bytes that are not UTF-8 (escaped when held), a scalar of plane 16
    /// (led by 0xF4 like an escape, but valid).
    static let pieces: [[UInt8]] = [[0x61], [0x7A], [0xC3, 0xA9], [0xC0], [0x80], [0xFF], [0xF4, 0x80, 0x80, 0x80]]
    static let versions = ["1.0", "1.00", "1.9", "1.10", "2", "", "1.0b2"]

    static func name(_ generator: inout SeededGenerator) -> [UInt8] {
        (0..<Int.random(in: 1...4, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator)! }
    }

    @Test func theRankingsKeyOrdersAsTheReference() {
        var generator = SeededGenerator(seed: 30)
        var seen = Set<[UInt8]>()
        var handlers: [HandlerRanking.Handler] = []
        while handlers.count < 2_000 {
            // Hosts by their bytes: `é` in NFC and in NFD, which Swift's String holds equal, are two.
            let host = ["", "alpha", "beta", "\u{E9}", "e\u{301}"].randomElement(using: &generator)!
            let bytes = Array("/Apps/".utf8) + Self.name(&generator) + Array(".app".utf8)
            guard seen.insert(bytes + Array(host.utf8)).inserted else { continue }
            let application = HandlerRanking.Application(path: FilePath(bytes: bytes), identifier: nil,
                                                         version: Self.versions.randomElement(using: &generator)!, claims: [],
                                                         host: host.isEmpty ? nil : host)
            let claim = LaunchClaim(target: .fileExtension("note"), role: .viewer, rank: LaunchClaim.Rank.allCases.randomElement(using: &generator)!)
            handlers.append(HandlerRanking.Handler(application: application, claim: claim, steps: [0, 1, 2, 255, 300].randomElement(using: &generator)!,
                                                   isEverything: Int.random(in: 0..<5, using: &generator) == 0))
        }
        let reference = handlers.sorted(by: Self.referencePrecedes)
        let paths = { (handlers: [HandlerRanking.Handler]) in handlers.map { "\(Array(($0.application.host ?? "").utf8)) \($0.application.path.bytes)" } }
        #expect(paths(handlers.sorted(by: HandlerRanking.precedes)) == paths(reference))
        var ordered = handlers.shuffled(using: &generator).sorted { a, b in
            let (x, y) = (a.application.path.bytes, b.application.path.bytes)
            return x != y ? x.lexicographicallyPrecedes(y) : Array((a.application.host ?? "").utf8).lexicographicallyPrecedes(Array((b.application.host ?? "").utf8))
        }
        HandlerRanking.order(pathOrdered: &ordered)
        #expect(paths(ordered) == paths(reference))
    }

    @Test func theCataloguesListsAndTheirMergeOrderAsTheReference() throws {
        let directory = TemporaryDirectory("handler-order-key")
        let tree = TreeWriter(root: directory.appending("tree"))
        var generator = SeededGenerator(seed: 3030)
        var names = Set<[UInt8]>()
        while names.count < 150 { names.insert(Self.name(&generator)) }
        let ranks = ["Owner", "Default", "Alternate", "None"]
        for (index, name) in names.sorted(by: { $0.lexicographicallyPrecedes($1) }).enumerated() {
            // A few document types each: an extension, a type reached in steps, everything.
            let documentTypes: [PlistValue] = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                let rank = PlistValue.string(ranks.randomElement(using: &generator)!)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: return .dictionary(["CFBundleTypeExtensions": .array([.string("note"), .string("jpg")]), "LSHandlerRank": rank])
                case 1: return .dictionary(["LSItemContentTypes": .array([.string("public.jpeg")]), "LSHandlerRank": rank])
                case 2: return .dictionary(["LSItemContentTypes": .array([.string("public.image")]), "LSHandlerRank": rank])
                default: return .dictionary(["CFBundleTypeExtensions": .array([.string("*")]), "LSHandlerRank": rank])
                }
            }
            tree.macApp("Apps/" + FileNameCoding.string(from: name + Array(".app".utf8)), identifier: "org.example.app\(index)", info: [
                "CFBundleVersion": .string(Self.versions.randomElement(using: &generator)!), "CFBundleDocumentTypes": .array(documentTypes),
            ])
        }
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))

        // Each list's entries: by rank, the higher version, the path's bytes, then the role.
        let lists = try catalogue.read { db in try Row.fetchAll(db, sql: "SELECT target_kind, target, entries FROM launch_lists").map { row in
            (target: "\(row[0] as String) \(row[1] as String)", entries: row[2] as Data)
        } }
        #expect(lists.count >= 5)
        var escapedNeighbours = 0
        for list in lists {
            let entries = try list.entries.withUnsafeBytes { blob in
                let reader = try LaunchListReader(blob)
                var entries: [(rank: UInt8, version: String, path: [UInt8], role: UInt8)] = []
                while try reader.next() {
                    entries.append((reader.order, reader.version.map { String(decoding: $0, as: UTF8.self) } ?? "",
                                    FileNameCoding.bytes(of: String(decoding: reader.path, as: UTF8.self)), reader.role))
                }
                return entries
            }
            for (a, b) in zip(entries, entries.dropFirst()) {
                let versions = BundleVersion.compare(a.version, b.version)
                let inOrder = a.rank != b.rank ? a.rank < b.rank
                    : versions != .orderedSame ? versions == .orderedDescending
                    : a.path != b.path ? a.path.lexicographicallyPrecedes(b.path) : a.role < b.role
                #expect(inOrder, "\(list.target): \(a.path) before \(b.path)")
                if a.rank == b.rank, versions == .orderedSame, [a.path, b.path].contains(where: { FileNameCoding.hasEscapes(FileNameCoding.string(from: $0)) }) { escapedNeighbours += 1 }
            }
        }
        // Names that are not UTF-8 meet in the lists: the comparison is not of ASCII alone.
        #expect(escapedNeighbours > 20)

        // The merged answer, whole and its first few, against the model's ranking sorted by the reference.
        let applications = try catalogue.bundles(matching: BundleQuery(kind: "application")).map { bundle in
            HandlerRanking.Application(path: bundle.record.key, identifier: bundle.record.identifier, version: bundle.record.version,
                                       claims: LaunchClaim.claims(in: bundle.record.infoDictionary))
        }
        #expect(applications.count == names.count)
        let types = try catalogue.typeDatabase()
        // Of an application's claims that rank alike, which is shown is not rule 30's (the first read).
        let describe = { (handlers: [HandlerRanking.Handler]) in
            handlers.map { "\($0.application.path.bytes) \($0.isEverything) \($0.claim.rank) \($0.steps)" }
        }
        for question in [HandlerRanking.Question.file(extension: "note"), .file(extension: "jpg"), .type("public.image"), .file(extension: "zzq")] {
            for all in [false, true] {
                let ranked = HandlerRanking.handlers(of: question, among: applications, types: types, all: all)
                let reference = ranked.sorted(by: Self.referencePrecedes)
                #expect(ranked.count > 10)
                #expect(describe(ranked) == describe(reference), "\(question) all: \(all)")
                #expect(describe(try catalogue.handlers(of: question, all: all)) == describe(reference), "\(question) all: \(all)")
                for limit in [1, 2, 5] {
                    #expect(describe(try catalogue.handlers(of: question, all: all, limit: limit)) == describe(Array(reference.prefix(limit))))
                }
            }
        }
    }
}
