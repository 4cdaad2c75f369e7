@testable import Catalogue
import BundleModel
import Codecs
import Fixtures
import Foundation
import GRDB
import SystemCalls
import Testing
import TestSupport

/// Launch Services' claim lists (catalogue v16): one blob per claim target, read in place or
/// through a window SQLite fills, and mended by `LaunchLists.settle` in every write transaction.
@Suite struct LaunchListTests {
    struct Entry: Equatable {
        var order: UInt8, role: UInt8, bundleID: Int64
        var versionKey: [UInt8], path: [UInt8], identifier: [UInt8]?, version: [UInt8]?
    }

    static func entries(_ count: Int, seed: UInt64) -> [Entry] {
        var generator = SeededGenerator(seed: seed)
        let folders = ["/Applications/", "/Applications/Utilities/", "/srv/apps/ÿ/", "/srv/apps/\u{301}e/"]
        return (0..<count).map { index in
            let folder = folders[Int.random(in: 0..<folders.count, using: &generator)]
            let name = Array((folder + "App\(Int.random(in: 0..<100_000, using: &generator)).app").utf8) + (index % 50 == 0 ? [0xF4, 0x8F, 0xBF, 0x80] : [])
            return Entry(order: UInt8(index % 4), role: UInt8(index % 4), bundleID: Int64(index) * 37 + (index % 3 == 0 ? 1 << 40 : 0),
                         versionKey: (0..<Int.random(in: 0..<12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) },
                         path: name, identifier: index % 5 == 0 ? nil : Array("org.example.app\(index)".utf8),
                         version: index % 7 == 0 ? nil : Array("\(index % 9).\(index % 13)".utf8))
        }
    }

    static func encode(_ entries: [Entry]) -> [UInt8] {
        var writer = LaunchListWriter()
        for entry in entries {
            entry.versionKey.withUnsafeBytes { versionKey in
                entry.path.withUnsafeBytes { path in
                    func optional(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> Void) {
                        guard let bytes else { return body(nil) }
                        bytes.withUnsafeBytes { body($0) }
                    }
                    optional(entry.identifier) { identifier in
                        optional(entry.version) { version in
                            writer.append(order: entry.order, role: entry.role, bundleID: entry.bundleID, versionKey: versionKey, path: path,
                                          identifier: identifier, version: version)
                        }
                    }
                }
            }
        }
        return writer.bytes
    }

    static func read(_ reader: LaunchListReader) throws -> [Entry] {
        var read: [Entry] = []
        while try reader.next() {
            read.append(Entry(order: reader.order, role: reader.role, bundleID: reader.bundleID, versionKey: Array(reader.versionKey),
                              path: Array(reader.path), identifier: reader.identifier.map(Array.init), version: reader.version.map(Array.init)))
        }
        return read
    }

    /// A reader through a window of `first` bytes, filled from `bytes` as SQLite's blob reads would.
    static func windowed(_ bytes: [UInt8], first: Int) throws -> LaunchListReader {
        try LaunchListReader(total: bytes.count, first: first) { buffer, offset in
            guard offset >= 0, offset + buffer.count <= bytes.count else { throw LaunchListCoding.Malformed() }
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + buffer.count)])) }
        }
    }

    @Test func aListReadsBackWholeAndThroughAnyWindow() throws {
        let entries = Self.entries(3_000, seed: 1)
        let bytes = Self.encode(entries)
        // In a list's order, paths share their leading bytes with the one before: not stored again.
        let byPath = entries.sorted { $0.path.lexicographicallyPrecedes($1.path) }
        let paths = entries.reduce(0) { $0 + $1.path.count }
        let others = entries.reduce(0) { $0 + $1.versionKey.count + ($1.identifier?.count ?? 0) + ($1.version?.count ?? 0) }
        // At most 16 bytes of lengths, codes and ids an entry.
        #expect(Self.encode(byPath).count - others - 16 * entries.count < paths / 2)
        #expect(try bytes.withUnsafeBytes { try Self.read(try LaunchListReader($0)) } == entries)
        for first in [1, 2, 7, 100, 4_096, 16 << 10, 1 << 20] {
            #expect(try Self.read(try Self.windowed(bytes, first: first)) == entries, "window of \(first) bytes")
        }
    }

    /// 3,000 damaged lists, whole and through windows: each reads some entries and then ends or
    /// throws; none reads past its end (the address sanitizer's job too) or loops.
    @Test func aDamagedListThrowsAndNeverReadsPastItsEnd() throws {
        let bytes = Self.encode(Self.entries(60, seed: 2))
        var mutator = Mutator(seed: 29)
        for round in 0..<3_000 {
            let damaged = round % 3 == 0 ? mutator.mutateWords(bytes, within: 256) : mutator.mutate(bytes)
            for first in [3, 64, 1 << 20] {
                if let reader = try? Self.windowed(damaged, first: first) { _ = try? Self.read(reader) }
            }
            damaged.withUnsafeBytes { blob in
                if let reader = try? LaunchListReader(blob) { _ = try? Self.read(reader) }
            }
        }
        // Cut at every length: each ends early, with an error rather than an entry half read.
        for length in 1..<bytes.count {
            let cut = Array(bytes.prefix(length))
            let entries = try? cut.withUnsafeBytes { try Self.read(try LaunchListReader($0)) }
            #expect(entries == nil || entries!.count < 60, "cut at \(length)")
        }
    }

    /// The lists stay what a rebuild from the applications' rows makes of them, entry for entry
    /// and in order, through 300 random transactions: applications written, their claims and
    /// versions changed, removed, and folders renamed and removed under them.
    @Test func theListsStayEqualToARebuildThroughRandomChanges() throws {
        let directory = TemporaryDirectory("launch-lists")
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.sqlite")), mode: .readWrite)
        var generator = SeededGenerator(seed: 7)
        let folders = ["/a", "/a/b", "/c", "/d\u{301}", "/d\u{e9}"]
        let extensions = ["jpg", "png", "txt", "note", "NOTE"]
        func record(_ path: String) -> BundleRecord {
            var record = BundleRecord(key: FilePath(path))
            record.kind = .application
            record.isBundle = true
            let identifier = "org.example." + path.split(separator: "/").joined(separator: ".")
            let version = ["1.0", "1.10", "2", "1.9b3", ""].randomElement(using: &generator)!
            let types: [PlistValue] = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                .dictionary(["CFBundleTypeExtensions": .array([.string(extensions.randomElement(using: &generator)!)]),
                             "CFBundleTypeRole": .string(["Editor", "Viewer", "None"].randomElement(using: &generator)!),
                             "LSHandlerRank": .string(["Owner", "Default", "Alternate", "None"].randomElement(using: &generator)!)])
            }
            record.info = ["CFBundleIdentifier": .string(identifier), "CFBundleVersion": .string(version),
                           "CFBundleDocumentTypes": .array(types),
                           "CFBundleURLTypes": .array([.dictionary(["CFBundleURLSchemes": .array([.string("app\(Int.random(in: 0..<3, using: &generator))")])])])]
            return record
        }
        var checked = 0
        for step in 0..<300 {
            try catalogue.transaction(scannedAt: Double(step)) { writer in
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let folder = folders.randomElement(using: &generator)!
                    let path = folder + "/App\(Int.random(in: 0..<8, using: &generator)).app"
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0..<6: try writer.write(record(path))
                    case 6: try writer.removeBundle(at: FilePath(path))
                    case 7, 8: try writer.renameSubtree(from: FilePath(folder), to: FilePath(folders.randomElement(using: &generator)!))
                    default: try writer.removeSubtree(FilePath(folder))
                    }
                }
            }
            let kept = try catalogue.read { try Catalogue.comparableLists($0) }
            try catalogue.write { try LaunchLists.rebuild($0) }
            let rebuilt = try catalogue.read { try Catalogue.comparableLists($0) }
            #expect(kept == rebuilt, "step \(step)")
            guard kept == rebuilt else { break }
            checked += kept.count
        }
        #expect(checked > 3_000)
    }
}
