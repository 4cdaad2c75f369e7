import Fixtures
import Foundation
import Testing
import TestSupport

/// The web inventory as a reader sees it: pages loaded by headless chromium from a real
/// `serve-web`, checked through the DOM the browser built (SPEC.md "The web inventory").
@Suite(.serialized) struct WebBrowserTests {
    @Test func searchShowsGermanNamesUnderAcceptLanguageDe() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let german = try Chromium.dom(server.url + "/?q=calc", language: "de", profile: fixture.temporary.appending("profile-de"))
        #expect(german.contains(">Rechner<"), "\(german)")
        #expect(german.contains("org.example.calculator"))
        let english = try Chromium.dom(server.url + "/?q=calc", language: "en", profile: fixture.temporary.appending("profile-en"))
        #expect(english.contains(">Calculator<") && !english.contains("Rechner"), "\(english)")
        // A display name in any language finds the bundle.
        let byGermanName = try Chromium.dom(server.url + "/?q=rechner", language: "en", profile: fixture.temporary.appending("profile-en"))
        #expect(byGermanName.contains("org.example.calculator"))
    }

    @Test func everyIconOnAResultsPageLoadsAsPNG() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let dom = try Chromium.dom(server.url + "/?q=org.example.*", profile: fixture.temporary.appending("profile"))
        let sources = dom.matches(of: #/<img [^>]*src="([^"]+)"/#).map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") }
        #expect(sources.count == 2, "Calculator's and Legacy's icons: \(sources)")
        for source in sources {
            #expect(source.hasPrefix("/icons/32.png?path="))
            // The browser asked for it and was answered 200 ...
            try poll(timeout: 30, "chromium's request for \(source):\n\(server.log)") {
                server.requests.contains { $0.target == source && $0.status == 200 && $0.bytes > 0 }
            }
            // ... with a PNG of the size the page draws.
            let answer = try FetchedAnswer.get(server.url + source, in: fixture.temporary)
            #expect(answer.headers["content-type"] == "image/png")
            #expect(Array(answer.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(answer.body.count > 24 && answer.body[16..<24].elementsEqual([0, 0, 0, 32, 0, 0, 0, 32]), "32×32")
        }
    }

    @Test func aHostileDisplayNameIsTextAndRunsNothing() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        for page in ["/?q=hostile", "/bundle?path=" + fixture.tree.path("Applications/Hostile.app").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!] {
            let dom = try Chromium.dom(server.url + page, profile: fixture.temporary.appending("profile"))
            // The name is in the page as text: escaped in the serialized DOM, never an element.
            #expect(dom.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(dom)")
            #expect(!dom.contains("<img src=\"x\""))
        }
        // Nothing asked for its `x`.
        #expect(!server.requests.contains { $0.target == "/x" }, "\(server.requests)")
    }

    @Test func theAppleSiliconReportListsTheIntelOnlyApplicationAndNotTheUniversalOne() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let dom = try Chromium.dom(server.url + "/reports/apple-silicon", profile: fixture.temporary.appending("profile"))
        let table = try #require(dom.firstMatch(of: #/<table[^>]*id="rosetta"[\s\S]*?</table>/#).map { String($0.0) })
        #expect(table.contains("org.example.legacy"))
        #expect(!table.contains("org.example.calculator"))
        // The chart is drawn by the server, as SVG: one native, one Intel-only.
        #expect(dom.contains("<svg"))
        #expect(dom.matches(of: #/class="value">(\d+)</#).map { Int($0.1)! } == [1, 1, 1], "native, Rosetta, no Mac code (Hostile.app's script)")
    }

    @Test func aBundlePageLinksItsUUIDsToDownloadsDebuginfodFindCanUse() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let path = fixture.tree.path("Applications/Calculator.app")
        let dom = try Chromium.dom(server.url + "/bundle?path=" + path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                                   profile: fixture.temporary.appending("profile"))
        #expect(dom.contains("href=\"/buildid/\(fixture.armKey)/debuginfo\""), "\(dom)")
        #expect(dom.contains("href=\"/buildid/\(fixture.armKey)/executable\""))
        // What the link names is what debuginfod-find fetches: the dSYM's DWARF file.
        let find = try #require(Toolchain.tool("debuginfod-find"), "debuginfod-find is not installed")
        let cache = fixture.temporary.appending("debuginfod-cache")
        let found = try Subprocess.run(find, ["debuginfo", fixture.armKey], environment: ["DEBUGINFOD_URLS": server.url, "DEBUGINFOD_CACHE_PATH": cache])
        #expect(found.status == 0, "\(found)")
        let file = found.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let dwarf = try Data(contentsOf: URL(fileURLWithPath: fixture.tree.path("Applications/Calculator.app.dSYM/Contents/Resources/DWARF/Calculator")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == dwarf)
    }

    @Test func aNewApplicationIsOnTheNextSearchWhileTheServerRuns() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let before = try Chromium.dom(server.url + "/?q=newcomer", profile: fixture.temporary.appending("profile"))
        #expect(!before.contains("org.example.newcomer"))
        fixture.tree.macApp("Applications/Newcomer.app", identifier: "org.example.newcomer")
        try fixture.index()
        let after = try Chromium.dom(server.url + "/?q=newcomer", profile: fixture.temporary.appending("profile"))
        #expect(after.contains("org.example.newcomer"), "\(after)")
    }

    @Test func theFirstPageWeighsUnder100KBAndRequestsNothingOutsideTheServer() throws {
        try #require(Chromium.path != nil, Comment(rawValue: Chromium.skipMessage))
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let dom = try Chromium.dom(server.url + "/", profile: fixture.temporary.appending("profile"))
        // Every address the page names is on this server.
        for match in dom.matches(of: #/(?:src|href|action)="([^"]*)"/#) {
            let address = String(match.1)
            #expect(address.hasPrefix("/") && !address.hasPrefix("//"), "\(address) is not on the server")
        }
        try poll(timeout: 30, "the page's script and style sheet:\n\(server.log)") {
            Set(server.requests.map(\.target)).isSuperset(of: ["/", "/static/inventory.css", "/static/inventory.js"])
        }
        let weight = server.requests.filter { $0.status == 200 }.reduce(0) { $0 + $1.bytes }
        #expect(weight < 100 * 1_024, "\(server.requests)")
        // The screenshot a reader would see is a real picture.
        let shot = fixture.temporary.appending("first.png")
        try Chromium.screenshot(server.url + "/", to: shot, profile: fixture.temporary.appending("profile"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(bytes.count > 1_000 && bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }
}
