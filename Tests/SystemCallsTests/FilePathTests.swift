import SystemCalls
import Testing

/// File names are bytes: compared, hashed and ordered as the file system has them, whatever
/// Unicode says about them.
@Suite struct FilePathTests {
    let nfc = "R\u{E9}sum\u{E9}"
    let nfd = "Re\u{301}sume\u{301}"

    @Test func normalizationTwinsAreTwoNames() {
        #expect(nfc == nfd, "as Strings they are one (canonical equivalence): the reason these types exist")
        #expect(FileName(nfc) != FileName(nfd))
        #expect(Set([FileName(nfc), FileName(nfd)]).count == 2)
        #expect(Set([FilePath("/a/" + nfc), FilePath("/a/" + nfd)]).count == 2)
        var table: [FilePath: Int] = [:]
        table[FilePath(nfc)] = 1
        table[FilePath(nfd)] = 2
        #expect(table.count == 2 && table[FilePath(nfc)] == 1 && table[FilePath(nfd)] == 2)
        #expect(!FilePath("/a/" + nfd).isWithin(FilePath("/a/" + nfc)))
        #expect(FilePath("/a/" + nfd + "/b").relative(to: FilePath("/a/" + nfc)) == nil)
    }

    @Test func orderIsTheBytesOrderEvenForBytesThatAreNotUTF8() {
        // A lone 0xC3 is escaped in the string; as bytes it still sorts before `C3 A9` (é).
        let lone = FileName(bytes: [0x61, 0xC3])
        let accented = FileName(bytes: [0x61, 0xC3, 0xA9])
        #expect(lone < accented && !(accented < lone))
        var generator = SplitMix(seed: 7)
        let names = (0..<500).map { _ in (0..<Int(generator.next() % 6 + 1)).map { _ in UInt8(truncatingIfNeeded: generator.next() % 5 == 0 ? 0xC3 : generator.next()) } }
            .map { bytes in bytes.map { $0 == 0 || $0 == 0x2F ? 0x41 : $0 } }
        let sortedAsNames = names.map { FileName(bytes: $0) }.sorted().map(\.bytes)
        let sortedAsBytes = names.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(sortedAsNames == sortedAsBytes)
        for bytes in names { #expect(FileName(bytes: bytes).bytes == bytes, "the coding is lossless") }
    }

    @Test func prefixesAreBytes() {
        // `_` followed by a combining mark is one Character, so String.hasPrefix says no.
        let sidecar = FileName("._\u{301}notes")
        #expect(!sidecar.string.hasPrefix("._"))
        #expect(sidecar.hasPrefix("._"))
        #expect(sidecar.dropping(prefixBytes: 2) == FileName("\u{301}notes"))
        #expect(FileName("notes").prefixed("._") == FileName("._notes"))
    }

    @Test func pathArithmetic() {
        let path = FilePath("/srv/" + nfd + "/Chess.app")
        #expect(path.lastComponent == FileName("Chess.app"))
        #expect(path.parent == FilePath("/srv/" + nfd))
        #expect(path.components == [FileName("srv"), FileName(nfd), FileName("Chess.app")])
        #expect(FilePath("/srv").appending(FileName(nfd)).appending(FilePath("Chess.app/Contents")) == FilePath("/srv/" + nfd + "/Chess.app/Contents"))
        #expect(FilePath.root.appending("a") == "/a")
        #expect(FilePath.here.appending("a") == "a")
        #expect(FilePath("a").appending(FilePath.here) == "a")
        #expect(FilePath("/a").parent == .root && FilePath("a").parent == .here && FilePath.root.parent == .root)
        #expect(FilePath("/a/b/").lastComponent == "b" && FilePath("/a/b/").parent == "/a")
        #expect(FilePath("/a/b").isWithin("/a") && FilePath("/a").isWithin("/a") && !FilePath("/ab").isWithin("/a"))
        #expect(FilePath("/a").isWithin(.root) && FilePath("x/y").isWithin(.here) && !FilePath("/x").isWithin(.here))
        #expect(FilePath("/a/b/c").relative(to: "/a") == "b/c" && FilePath("/a").relative(to: "/a") == .here)
        #expect(FilePath("/a/b").relative(to: .root) == "a/b" && FilePath("x/y").relative(to: .here) == "x/y")
        #expect(FilePath("/a/b/c").moved(from: "/a/b", to: "/z") == "/z/c" && FilePath("/q").moved(from: "/a", to: "/z") == nil)
        #expect(FilePath("x/../y/./z").absolute(base: "/base") == "/base/y/z")
        #expect(FilePath("/../../etc").absolute(base: "/base") == "/etc")
        // `/` followed by a combining mark: still a separator.
        #expect(FilePath("/a/\u{301}b").components == [FileName("a"), FileName("\u{301}b")])
        #expect(FilePath("/a/\u{301}b").parent == "/a")
    }

    /// The path arithmetic works on the bytes in place (`ExactBytes`); held here to the same
    /// arithmetic done on byte arrays, over random paths of slashes, dots, ASCII, NFC and NFD
    /// letters and bytes that are not UTF-8, short (stored inline) and long.
    @Test func pathArithmeticIsByteArithmetic() {
        var generator = SplitMix(seed: 11)
        let pieces: [[UInt8]] = [[0x2F], [0x2F], [0x2F, 0x2F], [0x2E], [0x61], [0x62, 0x63], Array(nfc.utf8), Array(nfd.utf8), [0xC3], [0xFF, 0xFE],
                                 Array("Contents/Resources".utf8), Array(repeating: 0x7A, count: 20)]
        func randomBytes() -> [UInt8] { (0..<Int(generator.next() % 7)).flatMap { _ in pieces[Int(generator.next() % UInt64(pieces.count))] } }
        func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
            var end = bytes.count
            while end > 1 && bytes[end - 1] == 0x2F { end -= 1 }
            return bytes[..<end]
        }
        for _ in 0..<3_000 {
            let bytes = randomBytes(), other = randomBytes()
            let path = FilePath(bytes: bytes), ancestor = FilePath(bytes: other)
            let cut = trimmed(bytes)
            let lastSlash = cut.lastIndex(of: 0x2F)
            let last: [UInt8] = cut.count > 1 ? lastSlash.map { Array(cut[($0 + 1)...]) } ?? Array(cut) : Array(cut)
            #expect(path.lastComponent.bytes == last, "\(bytes)")
            let parent: [UInt8] = lastSlash.map { $0 == 0 ? [0x2F] : Array(cut[..<$0]) } ?? []
            #expect(path.parent.bytes == parent, "\(bytes)")
            if !other.isEmpty && !bytes.isEmpty {
                let joined = bytes.last == 0x2F ? bytes + other : bytes + [0x2F] + other
                #expect(path.appending(ancestor).bytes == joined, "\(bytes) + \(other)")
            }
            let name = pieces[Int(generator.next() % UInt64(pieces.count))].filter { $0 != 0x2F }
            if !name.isEmpty {
                #expect(path.hasComponent(FileName(bytes: name)) == bytes.split(separator: 0x2F).contains { Array($0) == name }, "\(name) in \(bytes)")
            }
            let within = bytes == other || (other == [0x2F] && bytes.first == 0x2F) || (other.isEmpty && bytes.first != 0x2F)
                || (!other.isEmpty && other != [0x2F] && bytes.count > other.count && bytes.starts(with: other) && bytes[other.count] == 0x2F)
            #expect(path.isWithin(ancestor) == within, "\(bytes) within \(other)")
            if within && bytes != other && !other.isEmpty {
                #expect(path.relative(to: ancestor)?.bytes == Array(bytes[(other == [0x2F] ? 1 : other.count + 1)...]))
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so the property check is repeatable.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
