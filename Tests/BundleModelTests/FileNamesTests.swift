import BundleModel
import SystemCalls
import Testing

/// Extensions and suffixes are read from a name's bytes (`FileNames`): held to examples and to the
/// same arithmetic done on byte arrays, over names with dots, case, NFC and NFD letters, a
/// combining mark right after a dot and bytes that are not UTF-8.
@Suite struct FileNamesTests {
    @Test func examples() {
        #expect(FileNames.pathExtension("Chess.APP") == "APP" && FileNames.lowercasedExtension("Chess.APP") == "app")
        #expect(FileNames.pathExtension("Makefile") == nil && FileNames.pathExtension(".hidden") == nil && FileNames.pathExtension("a.") == nil)
        #expect(FileNames.pathExtension(".a.b") == "b" && FileNames.stem("Chess.mov.app") == "Chess.mov" && FileNames.stem(".hidden") == ".hidden")
        #expect(FileNames.lowercasedExtension("Caf\u{C9}.\u{C9}T\u{C9}") == "\u{E9}t\u{E9}", "a non-ASCII extension is lower-cased as Unicode")
        // A combining mark after the dot makes `.\u{301}` one Character: the extension is still the bytes after the dot.
        #expect(FileNames.pathExtension("a.\u{301}b") == "\u{301}b")
        #expect(FileNames.hasSuffixIgnoringASCIICase("Base.LPROJ", Array(".lproj".utf8)) && !FileNames.hasSuffixIgnoringASCIICase(".lproj", Array(".lproj".utf8)))
        #expect(FileNames.equalsIgnoringASCIICase("CONTENTS", "contents") && !FileNames.equalsIgnoringASCIICase("Content", "contents"))
    }

    @Test func extensionArithmeticIsByteArithmetic() {
        var state: UInt64 = 5
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let pieces: [[UInt8]] = [[0x2E], [0x2E], [0x61], [0x41, 0x50, 0x50], Array("lproj".utf8), Array("LProj".utf8),
                                 Array("R\u{E9}sum\u{E9}".utf8), Array("Re\u{301}sume\u{301}".utf8), [0xCC, 0x81], [0xC3], [0xFF]]
        let lproj = Array(".lproj".utf8)
        for _ in 0..<3_000 {
            let bytes = (0..<(next() % 6)).flatMap { _ in pieces[next() % pieces.count] }
            let name = FileName(bytes: bytes).string
            let dot = bytes.lastIndex(of: 0x2E)
            let ext: [UInt8]? = dot.flatMap { $0 == 0 || $0 + 1 == bytes.count ? nil : Array(bytes[($0 + 1)...]) }
            #expect(FileNames.pathExtension(name).map { FileName($0).bytes } == ext, "\(bytes)")
            #expect(FileNames.stem(name) == (ext == nil ? name : FileName(bytes: bytes[..<dot!]).string), "\(bytes)")
            let folded = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            #expect(FileNames.hasSuffixIgnoringASCIICase(name, lproj) == (bytes.count > lproj.count && folded.suffix(lproj.count).elementsEqual(lproj)), "\(bytes)")
            if let ext, ext.allSatisfy({ $0 < 0x80 }) {
                #expect(FileNames.lowercasedExtension(name) == String(decoding: ext.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self))
            }
        }
    }
}
