import Codecs
import Fixtures
import Testing

/// The three property-list formats written and read back, JSON both ways, and what each refuses.
@Suite struct PropertyListTests {
    let sample: PlistValue = .dictionary([
        "CFBundleIdentifier": .string("org.example.Chess"),
        "CFBundleDisplayName": .string("Schach <Spiel> & \"Co\" ♞"),
        "Count": .integer(-42),
        "Big": .integer(1 << 40),
        "Huge": .unsignedInteger(.max),
        "Edge": .unsignedInteger(UInt64(Int64.max) + 1),
        "Least": .integer(.min),
        "Ratio": .real(0.5),
        "Flag": .bool(true),
        "Off": .bool(false),
        "When": .date(0),
        "Blob": .data([0, 1, 2, 250, 255]),
        "List": .array([.string("a"), .integer(1), .array([]), .dictionary([:])]),
    ])

    @Test(arguments: [PlistFormat.xml, .binary, .openStep])
    func writtenPlistsReadBackUnchanged(format: PlistFormat) throws {
        let bytes: [UInt8] = switch format {
        case .xml: PropertyListWriter.xml(sample)
        case .binary: PropertyListWriter.binary(sample)
        case .openStep: PropertyListWriter.openStep(sample)
        }
        let document = try PropertyListReader.read(bytes)
        #expect(document.format == format)
        #expect(document.value == sample)
        #expect(document.problems.isEmpty)
    }

    /// The binary writer numbers objects in one pass and writes them in another: large, deep and
    /// wide values (two-byte references, long headers, UTF-16 strings) read back unchanged.
    @Test func binaryPlistsOfEveryShapeReadBackUnchanged() throws {
        var generator = SeededGenerator(seed: 0xB1157)
        func value(depth: Int) -> PlistValue {
            switch Int.random(in: 0..<(depth > 3 ? 7 : 9), using: &generator) {
            case 0: return .string(String(repeating: "k", count: Int.random(in: 0..<40, using: &generator)))
            case 1: return .string("Schach ♞ \(Int.random(in: 0..<1000, using: &generator))")
            case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &generator))
            case 3: return .real(Double(Int.random(in: -1000...1000, using: &generator)) / 8)
            case 4: return .data((0..<Int.random(in: 0..<20, using: &generator)).map { UInt8($0) })
            case 5: return .date(Double(Int.random(in: 0..<1_000_000_000, using: &generator)))
            case 6: return .bool(Bool.random(using: &generator))
            case 7: return .array((0..<Int.random(in: 0..<30, using: &generator)).map { _ in value(depth: depth + 1) })
            default:
                return .dictionary(Dictionary((0..<Int.random(in: 0..<30, using: &generator)).map { ("key\($0)", value(depth: depth + 1)) },
                                              uniquingKeysWith: { $1 }))
            }
        }
        for _ in 0..<200 {
            let sample = PlistValue.dictionary(["root": value(depth: 0), "more": value(depth: 1)])
            #expect(try PropertyListReader.read(PropertyListWriter.binary(sample)).value == sample)
        }
        let wide = PlistValue.array((0..<70_000).map { .integer(Int64($0)) })
        #expect(try PropertyListReader.read(PropertyListWriter.binary(wide)).value == wide, "more than 65,535 objects: four-byte references")
    }

    @Test func directJSONMatchesTheJSONValueForm() throws {
        #expect(sample.jsonText == sample.jsonValue.serialized())
        #expect(PlistValue(json: try JSONValue.parse(sample.jsonText)).dictionary?["CFBundleDisplayName"] == .string("Schach <Spiel> & \"Co\" ♞"))
    }

    /// The catalogue's JSON read back as JSON values and straight into property lists: numbers
    /// keep their kind and value at the edges, escapes and surrogate pairs decode, and anything
    /// malformed is an error, never a guess.
    @Test func jsonReadsBothWaysAndRefusesWhatIsMalformed() throws {
        let text = #"{"min": -9223372036854775808, "max": 9223372036854775807, "big": 9223372036854775808, "real": 1.5e3, "#
            + #""zero": -0.0, "s": "tab\t quote\" \u00e9 \ud83d\ude00 ♞", "list": [true, false, null, [], {}]}"#
        let json = try JSONValue.parse(text)
        #expect(json["min"] == .integer(.min) && json["max"] == .integer(.max))
        #expect(json["big"] == .unsignedInteger(9_223_372_036_854_775_808), "beyond Int64: unsigned, never wrapped")
        #expect(json["real"] == .number(1500) && json["s"] == .string("tab\t quote\" é 😀 ♞"))
        let plist = try PlistValue(jsonText: text)
        #expect(plist == PlistValue(json: json))
        #expect(plist.dictionary?["min"] == .integer(.min) && plist.dictionary?["real"] == .real(1500))
        #expect(try JSONValue.parse("18446744073709551616") == .number(18_446_744_073_709_551_616.0), "beyond UInt64: a number")
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "{1: 2}", "\"open", "tru", "1 2", "-", "[\"\\u12\"]", String(repeating: "[", count: 600)] {
            #expect(throws: JSONValue.ParseError.self, "\(bad.prefix(20))") { try JSONValue.parse(bad) }
            #expect(throws: JSONValue.ParseError.self, "\(bad.prefix(20))") { try PlistValue(jsonText: bad) }
        }
    }

    @Test func xmlWithEntitiesCommentsAndCDATA() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <!-- a comment -->
        <plist version="1.0">
        <dict>
            <key>A</key><string>x &lt;&amp;&gt; &#65;&#x42; <![CDATA[<raw>]]></string>
            <key>B</key><integer>0x1F</integer>
            <key>C</key><date>2001-01-02T00:00:00Z</date>
            <key>D</key><data>
              AAEC
              +v8=
            </data>
            <key>E</key><string/>
        </dict>
        </plist>
        """
        let value = try PropertyListReader.read(Array(xml.utf8)).value
        #expect(value.dictionary?["A"] == .string("x <&> AB <raw>"))
        #expect(value.dictionary?["B"] == .integer(31))
        #expect(value.dictionary?["C"] == .date(86400))
        #expect(value.dictionary?["D"] == .data([0, 1, 2, 250, 255]))
        #expect(value.dictionary?["E"] == .string(""))
    }

    @Test func xmlDeclaringLatin1IsDecodedAsLatin1() throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>M".utf8) + [0xFC] + Array("nchen</string></plist>".utf8)
        #expect(try PropertyListReader.read(bytes).value == .string("München"))
    }

    @Test func openStepWithGNUstepExtensionsAndComments() throws {
        let text = """
        // GNUstep writes these
        {
            Number = <*I42>;
            Real = <*R2.5>;
            Yes = <*BY>;
            No = <*BN>;
            When = <*D2001-01-01 01:00:00 +0100>;
            Data = <00ff 10>;
            Escapes = "tab\\there \\"quoted\\" \\U00A9 \\101 \\UD83D\\UDE00";
            /* block */ Unquoted = org.gap.Terminal;
            List = (a, "b c", (), {});
        }
        """
        let value = try PropertyListReader.read(Array(text.utf8)).value.dictionary!
        #expect(value["Number"] == .integer(42))
        #expect(value["Real"] == .real(2.5))
        #expect(value["Yes"] == .bool(true))
        #expect(value["No"] == .bool(false))
        #expect(value["When"] == .date(0))
        #expect(value["Data"] == .data([0x00, 0xFF, 0x10]))
        #expect(value["Escapes"] == .string("tab\there \"quoted\" © A 😀"))
        #expect(value["Unquoted"] == .string("org.gap.Terminal"))
        #expect(value["List"] == .array([.string("a"), .string("b c"), .array([]), .dictionary([:])]))
    }

    /// Rule 7: integers keep their value up to 2^64 - 1 in every format, as CoreFoundation writes
    /// them (binary: a 16-byte integer with a zero high half), and what no format can hold is an
    /// error rather than a wrapped number.
    @Test func integersAboveInt64KeepTheirValue() throws {
        let xml = #"<?xml version="1.0"?><plist version="1.0"><dict><key>max</key><integer>18446744073709551615</integer>"#
            + #"<key>hex</key><integer>0xFFFFFFFFFFFFFFFF</integer><key>min</key><integer>-9223372036854775808</integer></dict></plist>"#
        let value = try PropertyListReader.read(Array(xml.utf8)).value
        #expect(value.dictionary?["max"] == .unsignedInteger(.max))
        #expect(value.dictionary?["hex"] == .unsignedInteger(.max))
        #expect(value.dictionary?["min"] == .integer(.min))
        func integerPlist(_ text: String) -> [UInt8] { Array(#"<?xml version="1.0"?><plist version="1.0"><integer>\#(text)</integer></plist>"#.utf8) }
        #expect(try PropertyListReader.read(integerPlist("9223372036854775808")).value == .unsignedInteger(1 << 63))
        for text in ["18446744073709551616", "-9223372036854775809"] {
            #expect(throws: PlistError.self, "\(text)") { try PropertyListReader.read(integerPlist(text)) }
        }
        // A binary plist as CoreFoundation writes 2^64 - 1: marker 0x14, sixteen bytes.
        var binary: [UInt8] = Array("bplist00".utf8) + [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8)
        let offsetTable = binary.count
        binary += [8] // the object's offset
        binary += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
            + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(offsetTable) >> (56 - 8 * UInt64($0))) }
        #expect(try PropertyListReader.read(binary).value == .unsignedInteger(.max))
        #expect(PropertyListWriter.binary(.unsignedInteger(.max)) == binary)
        // JSON, as the catalogue stores it, carries it exactly.
        let info = PlistValue.dictionary(["Huge": .unsignedInteger(.max)])
        #expect(info.isExactInJSON)
        #expect(try PlistValue(jsonText: info.jsonText) == info)
        #expect(info.jsonText.contains("18446744073709551615"))
    }
}
