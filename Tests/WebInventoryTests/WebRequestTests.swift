import BundleModel
import IconImages
import Testing
@testable import WebInventory

/// The pure parts: request targets, Accept-Language, what a search box's text is, the chart.
struct WebRequestTests {
    @Test func targetsDecodeTheirQueries() throws {
        let request = try #require(WebRequest(target: "/?q=Caf%C3%A9+au+lait&kind=application&empty=&flag"))
        #expect(request.path == "/")
        #expect(request["q"] == "Café au lait" && request["kind"] == "application")
        #expect(request["empty"] == nil && request["flag"] == nil && request["missing"] == nil)
        #expect(WebRequest(target: "/a%2Fb")?.path == "/a/b")
    }

    @Test(arguments: ["/?q=%", "/?q=%4", "/?q=%zz", "/?q=%ff", "/%00", "/?q=a%00b", "/?%c3=1"])
    func malformedTargetsAreRefused(_ target: String) {
        #expect(WebRequest(target: target) == nil)
    }

    @Test func acceptLanguageOrdersByWeight() {
        #expect(AcceptLanguage.languages("fr;q=0.5, de-CH, en;q=0.8").map(\.description) == ["de-CH", "en", "fr"])
        #expect(AcceptLanguage.languages("de").map(\.description) == ["de"])
        #expect(AcceptLanguage.languages("*, en;q=0, de;q=abc, ;;;, ,").isEmpty)
        #expect(AcceptLanguage.languages(nil).isEmpty)
        #expect(AcceptLanguage.languages(String(repeating: "de,", count: 10_000)).map(\.description) == ["de"])
    }

    @Test func aSearchBoxTellsItsTextByShape() {
        #expect(Search(q: nil, kind: nil, arch: nil).text == .everything)
        #expect(Search(q: "  ", kind: nil, arch: nil).text == .everything)
        #expect(Search(q: "6F7A2B10-0000-4000-8000-00000000AB12", kind: nil, arch: nil).text == .uuid("6f7a2b1000004000800000000000ab12"))
        #expect(Search(q: "/Applications", kind: nil, arch: nil).text == .path("/Applications"))
        #expect(Search(q: "com.example.*", kind: nil, arch: nil).text == .glob("com.example.*"))
        #expect(Search(q: "cafe", kind: nil, arch: nil).text == .words("cafe"), "a short hex word is a word")
        #expect(Search(q: "Rechner", kind: nil, arch: nil).text == .words("Rechner"))
    }

    /// A word is searched in SQL (issue 40: reading every record took minutes at 50,000): three
    /// characters or more as text for the trigram index, in NFC and NFD where they differ; shorter,
    /// a LIKE when SQLite's ASCII case folding is enough, else a GLOB of each letter's two cases;
    /// the wildcards of either taken as text; exact unless a letter's other case is several letters.
    @Test func aWordBecomesTextForTheIndexOrAShortPattern() throws {
        #expect(Search.namePattern("Re1") == (.text(["Re1"]), true))
        let (pattern, exact) = Search.namePattern("Café")
        guard case let .text(forms) = pattern else { Issue.record("\(pattern)"); return }
        #expect(forms.map { Array($0.utf8) } == [Array("Caf\u{E9}".utf8), Array("Cafe\u{301}".utf8)] && exact, "NFC, then NFD")
        #expect(Search.namePattern("Re") == (.like("%re%"), true))
        #expect(Search.namePattern("%_") == (.like("%\\%\\_%"), true), "LIKE's wildcards are text")
        #expect(Search.namePattern("计算") == (.like("%计算%"), true), "letters without case compare as they are")
        #expect(Search.namePattern("É[") == (.glob("*[éÉ][[]*"), true))
        #expect(Search.namePattern("é?") == (.glob("*[éÉ][?]*"), true), "GLOB's wildcards are text")
        #expect(Search.namePattern("aß") == (.glob("*[aA]**"), false), "ß is SS in capitals: Swift decides")
        #expect(Search.namePattern("a\u{0}b") == (.like("%a\u{0}b%"), false), "NUL: Swift decides")
    }

    /// The search rows' values, escaped before the template shows them unescaped: what Mustache's
    /// `{{…}}` gives, by bytes (a `<` before a combining mark is escaped too).
    @Test func resultRowValuesAreEscapedAsMustacheWould() {
        #expect(HTMLText.escaped("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;")
        #expect(HTMLText.escaped(#"a & "b" 'c'"#) == "a &amp; &quot;b&quot; &#39;c&#39;")
        #expect(HTMLText.escaped("Caf\u{E9} \u{8BA1}\u{7B97} /bundle?path=%2FA&host=m") == "Caf\u{E9} \u{8BA1}\u{7B97} /bundle?path=%2FA&amp;host=m")
        #expect(HTMLText.escaped("<\u{301}") == "&lt;\u{301}")
        #expect(HTMLText.escaped("plain") == "plain" && HTMLText.escaped("").isEmpty)
    }

    @Test func theChartEscapesItsLabels() {
        let svg = BarChart.svg([("<script>", 3), ("b & c", 0)])
        #expect(svg.contains("&lt;script&gt;") && svg.contains("b &amp; c") && !svg.contains("<script>"))
    }

    @Test func iconsAreScaledToTheSideAPageDraws() throws {
        let image = try #require(RGBAImage(width: 4, height: 2, pixels: [UInt8](repeating: 0xFF, count: 32)))
        let scaled = IconScaling.square(image, side: 2)
        #expect(scaled.width == 2 && scaled.height == 2)
        #expect(scaled.pixel(x: 0, y: 0) == (0xFF, 0xFF, 0xFF, 0xFF) && scaled.pixel(x: 0, y: 1) == (0, 0, 0, 0), "centred, transparent around")
        #expect(IconScaling.square(image, side: 8).pixel(x: 7, y: 3) == (0xFF, 0xFF, 0xFF, 0xFF))
    }
}
