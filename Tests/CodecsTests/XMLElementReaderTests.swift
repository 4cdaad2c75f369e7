import Codecs
import Fixtures
import Testing

/// The small XML reader installer metadata is read with: what it keeps, and hostile input (deep
/// nesting, entity tricks, truncation, thousands of mutations) failing cleanly.
@Suite struct XMLElementReaderTests {
    @Test func elementsAttributesTextAndEntities() throws {
        let document = """
            \u{FEFF}<?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE x [ <!ENTITY e "boom"> ]>
            <!-- a comment -->
            <root a="1" b='two &amp; &lt;3&gt;'>
              Hello &#x41;&#66; &quot;world&apos;
              <child id="c1"/><?pi data?>
              <child id="c2">inner<![CDATA[<raw> & text]]></child>
              <!-- ignored -->
              <ns:other xmlns:ns="urn:x">é</ns:other>
            </root>
            """
        let root = try XMLElementReader.read(Array(document.utf8))
        #expect(root.name == "root")
        #expect(root.attributes == ["a": "1", "b": "two & <3>"])
        #expect(root.text.contains("Hello AB \"world'"))
        #expect(root.children(named: "child").map { $0.attributes["id"] } == ["c1", "c2"])
        #expect(root.children(named: "child")[1].text == "inner<raw> & text")
        #expect(root.child(named: "ns:other")?.text == "é")
    }

    @Test(arguments: [
        "", "   ", "<", "<a>", "<a></b>", "<a b=1/>", "<a b=\"1\" b=\"2\"/>", "<a>&unknown;</a>", "<a>&#0;</a>", "<a>&#x110000;</a>",
        "<a>& b</a>", "<a/><b/>", "<a><!-- x</a>", "<a><![CDATA[x</a>", "<a b=\"x></a>", "text", "<a></a> trailing", "<a/ >",
    ])
    func malformedDocumentsAreErrors(_ text: String) {
        #expect(throws: XMLError.self) { try XMLElementReader.read(Array(text.utf8)) }
    }

    /// A DOCTYPE's entities are never expanded (a billion laughs is an unknown entity), and
    /// nesting and element counts are bounded.
    @Test func hostileDocumentsStopAtTheirLimits() {
        let laughs = "<!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><l>&b;</l>"
        #expect(throws: XMLError.self) { try XMLElementReader.read(Array(laughs.utf8)) }
        let deep = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        #expect(throws: XMLError.self) { try XMLElementReader.read(Array(deep.utf8)) }
        let wide = "<a>" + String(repeating: "<b/>", count: XMLElementReader.maximumElements) + "</a>"
        #expect(throws: XMLError.self) { try XMLElementReader.read(Array(wide.utf8)) }
    }

    @Test func thousandsOfMutationsNeverTrap() {
        let seed = Array("""
            <?xml version="1.0"?><pkg-info format-version="2" identifier="com.example.pkg" version="1.0" install-location="/Applications">
            <bundle-version><bundle id="com.example.app" CFBundleShortVersionString="1.0" path="./Example.app"/></bundle-version>
            <title>Ex &amp; ample</title><![CDATA[x]]><!-- c --></pkg-info>
            """.utf8)
        var mutator = Mutator(seed: 33)
        var parsed = 0
        for _ in 0..<4_000 {
            if (try? XMLElementReader.read(mutator.mutate(seed))) != nil { parsed += 1 }
        }
        // Some mutations leave a well-formed document; most do not: both paths were taken.
        #expect(parsed > 0 && parsed < 4_000)
    }
}
