import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// The web inventory over HTTP without a browser: its JSON against the command line's, its
/// headers, and what it refuses.
@Suite(.serialized) struct WebServerTests {
    @Test func apiBundlesGivesWhatQueryJsonGivesFieldForField() throws {
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        for (q, arguments) in [("org.example.*", ["org.example.*"]), ("", [])] {
            let web = try FetchedAnswer.get(server.url + "/api/bundles?q=" + q, headers: ["Accept-Language: de"], in: fixture.temporary)
            #expect(web.status == 200 && web.headers["content-type"] == "application/json")
            let cli = try Subprocess.bundlefs(["query", "--json", "--lang", "de"] + arguments, catalogue: fixture.catalogue)
            #expect(try JSONValue.parse(web.text) == JSONValue.parse(cli.standardOutput), "q=\(q)")
        }
        // German, as the request asked.
        let german = try JSONValue.parse(try FetchedAnswer.get(server.url + "/api/bundles?q=org.example.calculator", headers: ["Accept-Language: fr;q=0.5, de"],
                                                              in: fixture.temporary).text)
        #expect(german.arrayValue?.first?["displayName"]?.stringValue == "Rechner")
    }

    /// A word search (now SQL over the name columns and the localized names, issue 40) finds a
    /// name in any language and case, takes wildcards as text, and counts past the page's 200.
    @Test func aWordFindsNamesInAnyLanguageAndCaseAndTakesWildcardsAsText() throws {
        let fixture = try WebFixture()
        fixture.tree.macApp("Applications/Chess.app", identifier: "org.example.chess",
                            info: ["LSHasLocalizedDisplayName": .bool(true), "CFBundleDevelopmentRegion": .string("en")],
                            localizedStrings: ["fr": ["CFBundleDisplayName": "Échecs"], "ru": ["CFBundleName": "Шахматы"]])
        fixture.tree.macApp("Applications/Sale 100%.app", identifier: "org.example.sale")
        for index in 0..<205 { fixture.tree.macApp("Tools/Tool\(index).app", identifier: "org.example.tool\(index)") }
        try fixture.index()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        func identifiers(_ q: String) throws -> [String] {
            let escaped = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
            let answer = try FetchedAnswer.get(server.url + "/api/bundles?q=" + escaped, in: fixture.temporary)
            return try JSONValue.parse(answer.text).arrayValue?.compactMap { $0["identifier"]?.stringValue } ?? []
        }
        #expect(try identifiers("rechner") == ["org.example.calculator"], "German, another case")
        #expect(try identifiers("échecs") == ["org.example.chess"], "a cased letter outside ASCII, folded")
        #expect(try identifiers("ШАХМАТ") == ["org.example.chess"])
        let calc = try identifiers("CALC")
        #expect(calc.contains("org.example.calculator") && calc.allSatisfy { $0.lowercased().contains("calculator") }, "part of a name: \(calc)")
        #expect(try identifiers("100%") == ["org.example.sale"], "% is text")
        #expect(try identifiers("o_l").isEmpty, "_ is text")
        #expect(try identifiers("[c]alc").isEmpty, "[ is text")
        #expect(try identifiers("tool").count == 205)
        let page = try FetchedAnswer.get(server.url + "/?q=tool", in: fixture.temporary).text
        #expect(page.contains("205"), "the count of all, past the 200 listed")
        #expect(page.components(separatedBy: "org.example.tool").count - 1 == 200)
    }

    /// A word of three characters or more is found through the catalogue's trigram index
    /// (schema v19), in any case and in either normalization form: a file name macOS wrote in
    /// NFD is found by the NFC a keyboard types, and the other way round; shorter words are
    /// scanned for. The index's query language is no part of a word: quotes and operators are text.
    @Test func aWordIsFoundInNFCOrNFDAndInAnyScript() throws {
        let fixture = try WebFixture()
        fixture.tree.macApp("Applications/Cafe\u{301} Noir.app", identifier: "org.example.nfd") // as macOS writes it
        fixture.tree.macApp("Applications/Crème.app", identifier: "org.example.nfc",
                            info: ["LSHasLocalizedDisplayName": .bool(true), "CFBundleDevelopmentRegion": .string("en")],
                            localizedStrings: ["de": ["CFBundleDisplayName": "Größenrechner"], "ja": ["CFBundleDisplayName": "電卓アプリ"]])
        fixture.tree.macApp("Applications/Quote.app", identifier: "org.example.quote", info: ["CFBundleName": .string("say \"hi\" NEAR(x)")])
        try fixture.index()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        func identifiers(_ q: String) throws -> [String] {
            let escaped = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
            let answer = try FetchedAnswer.get(server.url + "/api/bundles?q=" + escaped, in: fixture.temporary)
            #expect(answer.status == 200, "q=\(q): \(answer.text)")
            return try JSONValue.parse(answer.text).arrayValue?.compactMap { $0["identifier"]?.stringValue } ?? []
        }
        #expect(try identifiers("CAF\u{C9}") == ["org.example.nfd"], "typed in NFC, written in NFD")
        #expect(try identifiers("cafe\u{301} n") == ["org.example.nfd"])
        #expect(try identifiers("CRE\u{300}ME") == ["org.example.nfc"], "typed in NFD, written in NFC")
        #expect(try identifiers("crème") == ["org.example.nfc"])
        #expect(try identifiers("GRÖSSEN").isEmpty, "ß is not ss")
        #expect(try identifiers("größenRECHNER") == ["org.example.nfc"], "German, any case")
        #expect(try identifiers("rechner") == ["org.example.calculator", "org.example.nfc"])
        #expect(try identifiers("電卓ア") == ["org.example.nfc"], "Japanese, through the index")
        #expect(try identifiers("電卓") == ["org.example.nfc"], "two characters, scanned for")
        #expect(try identifiers("\"hi\" near(") == ["org.example.quote"], "quotes and operators are text")
        #expect(try identifiers("\"\"\"").isEmpty, "nothing, and no error")
    }

    /// The word search over a catalogue a watcher keeps: its first index fills the names and
    /// their trigram index at its end, with no trigger live meanwhile; then the triggers keep both
    /// as bundles come, are renamed and go.
    @Test func aWatchedCatalogueIsSearchedAsItChanges() throws {
        let temporary = TemporaryDirectory("web-watch")
        let tree = TreeWriter(root: temporary.appending("tree"))
        let localized: [String: PlistValue] = ["LSHasLocalizedDisplayName": .bool(true), "CFBundleDevelopmentRegion": .string("en")]
        tree.macApp("Applications/Calculator.app", identifier: "org.example.calculator", info: localized, localizedStrings: ["de": ["CFBundleDisplayName": "Rechner"]])
        let catalogue = temporary.appending("catalogue.sqlite")
        let watcher = try WatcherProcess(roots: [tree.root], catalogue: catalogue, logFile: temporary.appending("watch.log"))
        try watcher.waitUntilWatching()
        let server = try WebServerProcess(catalogue: catalogue, logFile: temporary.appending("web.log"))
        func identifiers(_ q: String) throws -> Set<String> {
            let escaped = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
            let answer = try FetchedAnswer.get(server.url + "/api/bundles?q=" + escaped, in: temporary)
            guard answer.status == 200 else { throw WatcherFailure("q=\(q): \(answer.status) \(answer.text)") }
            return Set(try JSONValue.parse(answer.text).arrayValue?.compactMap { $0["identifier"]?.stringValue } ?? [])
        }
        #expect(try identifiers("rechner") == ["org.example.calculator"], "a localized name, from the first index")
        #expect(try identifiers("calcul") == ["org.example.calculator"], "a file name, from the first index")

        tree.macApp("Applications/Abacus.app", identifier: "org.example.abacus", info: localized, localizedStrings: ["de": ["CFBundleDisplayName": "Taschenrechner"]])
        try poll(timeout: 120, "the new bundle's German name to be found") { try identifiers("rechner") == ["org.example.abacus", "org.example.calculator"] }
        tree.rename("Applications/Abacus.app", "Applications/Zählrahmen.app")
        try poll(timeout: 120, "the renamed bundle to be found by its new name") { try identifiers("zählrahmen") == ["org.example.abacus"] }
        tree.remove("Applications/Calculator.app")
        try poll(timeout: 120, "the removed bundle's names to be gone") { try identifiers("rechner") == ["org.example.abacus"] }
        #expect(try identifiers("calcul").isEmpty)
        #expect(try identifiers("abacus") == ["org.example.abacus"], "its identifier")
        try watcher.stop()
    }

    @Test func apiOpenWithGivesWhatOpenWithJsonGives() throws {
        let fixture = try WebFixture()
        fixture.tree.macApp("Applications/Viewer.app", identifier: "org.example.viewer", info: [
            "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("calc")]), "CFBundleTypeRole": .string("Viewer")])]),
        ])
        try fixture.index()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let web = try FetchedAnswer.get(server.url + "/api/open-with?ext=calc", in: fixture.temporary)
        let cli = try Subprocess.bundlefs(["open-with", "--extension", "calc", "--json"], catalogue: fixture.catalogue)
        #expect(cli.status == 0, "\(cli)")
        #expect(try JSONValue.parse(web.text) == JSONValue.parse(cli.standardOutput))
        #expect(try JSONValue.parse(web.text).arrayValue?.count == 1)
        let page = try FetchedAnswer.get(server.url + "/open-with?ext=calc", in: fixture.temporary)
        #expect(page.text.contains("org.example.viewer"))
    }

    @Test func pagesCarryAPolicyWithoutInlineScriptAndIconsCarryETags() throws {
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        let page = try FetchedAnswer.get(server.url + "/", in: fixture.temporary)
        #expect(page.status == 200)
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
        #expect(page.headers["cache-control"] == "no-store")
        // No inline script: the only script element names our file.
        #expect(page.text.matches(of: #/<script[^>]*>/#).map { String($0.0) } == ["<script src=\"/static/inventory.js\" defer>"])
        let icon = "/icons/128.png?path=" + fixture.tree.path("Applications/Legacy.app").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let first = try FetchedAnswer.get(server.url + icon, in: fixture.temporary)
        #expect(first.status == 200 && first.headers["content-type"] == "image/png" && first.headers["cache-control"] == "max-age=300")
        let etag = try #require(first.headers["etag"])
        let again = try FetchedAnswer.get(server.url + icon, headers: ["If-None-Match: \(etag)"], in: fixture.temporary)
        #expect(again.status == 304 && again.body.isEmpty && again.headers["etag"] == etag)
        #expect(again.headers["content-length"] == nil, "a 304 names no length but the 200's")
    }

    @Test func noRequestReachesTheDiskButThroughACatalogueRecord() throws {
        let fixture = try WebFixture()
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"))
        for target in ["/icons/32.png?path=/etc", "/icons/32.png?path=/etc/passwd", "/bundle?path=/etc", "/static/../../etc/passwd",
                       "/static/%2e%2e/etc/passwd", "/icons/33.png?path=" + fixture.tree.path("Applications/Legacy.app"), "/nothing"] {
            let answer = try FetchedAnswer.get(server.url + target, in: fixture.temporary)
            #expect([400, 404].contains(answer.status), "\(target): \(answer.status)")
            #expect(!answer.text.contains("root:"))
        }
        // A bad escape in a query is a 400 page, and the server is still there.
        #expect(try FetchedAnswer.get(server.url + "/?q=%ff%fe", in: fixture.temporary).status == 400)
        #expect(try FetchedAnswer.get(server.url + "/", in: fixture.temporary).status == 200)
    }

    @Test func aNonLoopbackAddressNeedsAllowRemote() throws {
        let fixture = try WebFixture()
        let refused = try Subprocess.bundlefs(["serve-web", "--listen", "0.0.0.0:0"], catalogue: fixture.catalogue)
        #expect(refused.status != 0 && refused.standardError.contains("--allow-remote"), "\(refused)")
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"), arguments: [])
        #expect(!server.log.contains("warning"))
    }
}
