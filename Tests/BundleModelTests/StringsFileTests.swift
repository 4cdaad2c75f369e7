import BundleModel
import Codecs
import Fixtures
import Testing

/// Rule 19: `.strings` files in every form real bundles ship, broken ones included, read into tables.
@Suite struct StringsFileTests {
    // BUNDLES.md section 7: InfoPlist.strings as UTF-16LE with BOM, as binary plist, as UTF-8 with BOM: all three read.
    @Test(arguments: StringsEncoding.allCases)
    func stringsFilesReadInEveryEncoding(encoding: StringsEncoding) throws {
        let entries: [(String, String)] = [("CFBundleDisplayName", encoding == .latin1 || encoding == .macRoman ? "Schäch" : "Schach ♞"), ("Quote", "say \"hi\"")]
        let table = try StringsFileReader.read(StringsEncoder.encode(entries, as: encoding))
        #expect(table.entries == Dictionary(uniqueKeysWithValues: entries))
        switch encoding {
        case .utf16LittleEndianWithBOM, .utf16LittleEndianNoBOM: #expect(table.encoding == .utf16LittleEndian)
        case .utf16BigEndianWithBOM: #expect(table.encoding == .utf16BigEndian)
        case .utf8WithBOM: #expect(table.encoding == .utf8WithBOM)
        case .latin1: #expect(table.encoding == .windows1252)
        case .macRoman: #expect(table.encoding == .macRoman)
        case .binaryPlist: #expect(table.format == .binary)
        case .xmlPlist: #expect(table.format == .xml)
        case .utf8: #expect(table.encoding == .utf8)
        }
    }

    @Test func stringsFileShorthandsAndAMissingFinalSemicolon() throws {
        let table = try StringsFileReader.read(Array("\"Same\";\nKey = \"Value\";\n\"Last\" = \"no semicolon\"\n".utf8))
        #expect(table.entries == ["Same": "Same", "Key": "Value", "Last": "no semicolon"])
        #expect(table.problems.count == 1)
        #expect(table.problems.first?.line == 4)
    }

    @Test func unbalancedQuotesAreAnErrorWithTheLine() {
        #expect(throws: PlistError.self) {
            try StringsFileReader.read(Array("\"a\" = \"b\";\n\"c\" = \"unterminated;\n".utf8))
        }
        do {
            _ = try StringsFileReader.read(Array("\"a\" = \"b\";\n\"c\" = \"unterminated;\n".utf8))
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test func nonDictionaryRootIsNotAStringsTable() {
        #expect(throws: PlistError.self) { try StringsFileReader.read(Array("(a, b)".utf8)) }
    }

    @Test func aStringAloneIsAStringRootAndTextThatGoesOnIsAStringsTable() throws {
        #expect(try PropertyListReader.read(Array("hello".utf8)).value == .string("hello"))
        #expect(try PropertyListReader.read(Array("  \"hello world\" /* note */\n".utf8)).value == .string("hello world"))
        #expect(try PropertyListReader.read(Array("hello;".utf8)).value == .dictionary(["hello": .string("hello")]))
        #expect(try PropertyListReader.read(Array("\"a\" = \"b\";".utf8)).value == .dictionary(["a": .string("b")]))
        #expect(throws: PlistError.self) { try PropertyListReader.read(Array("hello world".utf8)) }
        #expect(throws: PlistError.self) { try StringsFileReader.read(Array("hello".utf8)) }
    }
}
