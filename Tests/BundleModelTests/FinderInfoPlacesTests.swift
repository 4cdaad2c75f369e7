import BundleModel
import Fixtures
import SystemCalls
import Testing
import TestSupport

/// Rule 4 has two readers: any item by path (the view's listings of plain files and folders) and
/// a directory being inspected (a bundle's or package's own, kept in the catalogue). Whatever the
/// sidecar, both find the same Finder info, and the one the rule says.
@Suite struct FinderInfoPlacesTests {
    let temporary = TemporaryDirectory("finder-info")
    var tree: TreeWriter { TreeWriter(root: temporary.path) }

    /// The package bit (so the inspector keeps a record) and the hidden-extension flag.
    static let flags: UInt16 = 0x2010
    static let record = FinderInfoBlobs.record(flags8: 0x20, flags9: 0x10)

    /// An AppleDouble file whose entries are where the test says, the table first.
    static func appleDouble(_ entries: [(id: UInt32, offset: Int, bytes: [UInt8])]) -> [UInt8] {
        func be(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        var blob: [UInt8] = [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00] + Array("Mac OS X        ".utf8) + be(entries.count, 2)
        for entry in entries { blob += be(Int(entry.id), 4) + be(entry.offset, 4) + be(entry.bytes.count, 4) }
        for entry in entries.sorted(by: { $0.offset < $1.offset }) {
            blob += [UInt8](repeating: 0, count: entry.offset - blob.count)
            blob += entry.bytes
        }
        return blob
    }

    /// Both readers' answers for a folder `name` whose sidecar `._name` the test wrote.
    func answers(_ name: String) throws -> (anyItem: UInt16?, inspected: UInt16?) {
        let path = FilePath(tree.path(name))
        let anyItem = FinderInfo.flags(ofItemAt: path, type: .directory, sidecar: path.parent.appending(FileName("._" + name)))
        return (anyItem, try inspect(name, in: tree)?.finderFlags)
    }

    func expectBoth(_ name: String, _ expected: UInt16?, _ comment: Comment) throws {
        let (anyItem, inspected) = try answers(name)
        #expect(anyItem == expected, "any item: \(comment)")
        #expect(inspected == expected, "inspected: \(comment)")
    }

    @Test func finderInfoAtAnyOffsetWriterStyle() throws {
        for offset in [50, 82, 86, 122] {
            tree.directory("At\(offset)")
            tree.file("._At\(offset)", FinderInfoBlobs.appleDouble(Self.record, finderInfoOffset: offset))
            try expectBoth("At\(offset)", Self.flags, "entry 9 at \(offset)")
        }
    }

    /// macOS writes an item's extended attributes inside the Finder Info entry (after its 32
    /// bytes), so an item with many attributes has an entry of several kilobytes.
    @Test func aLongFinderInfoEntryAsMacOSWritesIt() throws {
        tree.directory("Tagged")
        let attributes = [UInt8](repeating: 0x41, count: 6000)
        tree.file("._Tagged", Self.appleDouble([(9, 50, Self.record + attributes), (2, 50 + 32 + 6000, Array("fork".utf8))]))
        try expectBoth("Tagged", Self.flags, "an entry 9 of 6,032 bytes")
    }

    /// The entry table says where entry 9 is, wherever that is: here after a large resource fork.
    @Test func finderInfoAfterALargeResourceFork() throws {
        tree.directory("Forked")
        let fork = [UInt8](repeating: 0x52, count: 100_000)
        tree.file("._Forked", Self.appleDouble([(2, 62, fork), (9, 62 + fork.count, Self.record)]))
        try expectBoth("Forked", Self.flags, "entry 9 past 64 KiB")
    }

    /// A sidecar is a file beside the item: a link named like one is not followed (the watcher
    /// notices a sidecar change by the entry itself, never by where a link leads).
    @Test func aSymlinkIsNoSidecar() throws {
        tree.directory("Linked")
        tree.file("elsewhere", FinderInfoBlobs.appleDouble(Self.record))
        tree.symlink("._Linked", to: "elsewhere")
        try expectBoth("Linked", nil, "a symlink named ._Linked")
    }

    @Test func aSidecarThatIsNoFileCarriesNoFlags() throws {
        tree.directory("Piped")
        tree.fifo("._Piped")
        try expectBoth("Piped", nil, "a FIFO named ._Piped")
        tree.directory("Nested")
        tree.file("._Nested/inside", FinderInfoBlobs.appleDouble(Self.record))
        try expectBoth("Nested", nil, "a directory named ._Nested")
    }

    @Test func anEntryRunningPastTheEndCarriesNoFlags() throws {
        tree.directory("Cut")
        tree.file("._Cut", Array(Self.appleDouble([(9, 50, Self.record + [UInt8](repeating: 0, count: 100))]).dropLast(40)))
        try expectBoth("Cut", nil, "entry 9 claims 40 bytes more than the file has")
        tree.directory("Short")
        tree.file("._Short", Self.appleDouble([(9, 50, Array(Self.record.prefix(31)))]))
        try expectBoth("Short", nil, "entry 9 of 31 bytes")
    }

    @Test func theFirstPlaceWithWellFormedFinderInfoWins() throws {
        tree.directory("Both")
        tree.setAttribute("Both", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x20))
        tree.file("._Both", FinderInfoBlobs.appleDouble(Self.record))
        try expectBoth("Both", 0x2000, "the attribute before the sidecar")
        tree.directory("Malformed")
        tree.setAttribute("Malformed", name: "user.com.apple.FinderInfo", value: [0x20])
        tree.file("._Malformed", FinderInfoBlobs.appleDouble(Self.record))
        try expectBoth("Malformed", Self.flags, "a short attribute is passed over")
    }
}
