import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import SystemCalls
import Testing
import TestSupport

/// The whole record PostgreSQL keeps per bundle: what the catalogue gives back is what comes out,
/// and bytes that are not a record are an error, never a crash.
struct RecordCodingTests {
    /// Every bundle of the sample tree and of names that are bytes round-trips exactly.
    @Test func roundTripsEveryRecord() throws {
        let temporary = TemporaryDirectory("record-coding")
        let tree = TreeWriter(root: temporary.appending("tree"))
        SampleTree.write(to: tree.root)
        tree.macApp("Names/Re\u{301}sume\u{301}/Tab\tName.app", identifier: "com.example.nul\u{0}inside",
                    localizedStrings: ["de": ["CFBundleDisplayName": "Mit\u{0}Null"]])
        tree.macApp("Names/\(FileNameCoding.string(from: [0x42, 0xFF])).app", identifier: "com.example.bytes")
        let catalogue = try Catalogue(path: FilePath(temporary.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        let records = try catalogue.bundles(matching: BundleQuery()).map(\.record)
        #expect(records.count > 24)
        #expect(records.contains { !$0.binaries.isEmpty } && records.contains { !$0.infoPlistStrings.isEmpty })
        for record in records {
            #expect(try RecordCoding.decode(RecordCoding.encode(record)) == record, "\(record.key)")
        }
    }

    /// Names are bytes: InfoPlist.strings of `Français.lproj` in NFC and in NFD are two tables.
    @Test func twinLocalizationsStayTwo() throws {
        var record = BundleRecord(key: "/Applications/Re\u{301}sume\u{301}.app")
        record.infoPlistStrings = [FileName("Fran\u{E7}ais"): ["CFBundleName": "NFC"], FileName("Franc\u{327}ais"): ["CFBundleName": "NFD"]]
        #expect(record.infoPlistStrings.count == 2)
        #expect(try RecordCoding.decode(RecordCoding.encode(record)) == record)
    }

    /// A few thousand mutations of real records: each decodes to a record or throws.
    @Test func mutatedRecordsNeverCrash() throws {
        var record = BundleRecord(key: "/Applications/Chess.app")
        record.kind = "application"
        record.info = ["CFBundleIdentifier": .string("org.example.chess"), "CFBundleVersion": .string("1.0")]
        record.binaries = [BinarySlice(file: "Contents/MacOS/Chess", format: .machO, arch: "arm64", fileType: "execute")]
        record.errors = ["one"]
        let seed = RecordCoding.encode(record)
        var mutator = Mutator(seed: 1616)
        var decoded = 0
        for _ in 0..<3_000 {
            let bytes = mutator.mutate(seed)
            if (try? RecordCoding.decode(bytes)) != nil { decoded += 1 }
        }
        #expect(decoded > 0 && decoded < 3_000)
        #expect(throws: RecordCoding.DecodingError.self) { try RecordCoding.decode(Array("not a record".utf8)) }
    }
}
