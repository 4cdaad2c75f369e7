import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// `serve-web --database URL [--host H]` (issue 40): the fleet view, from the PostgreSQL database
/// hosts publish to (a real server the test starts), each answer with its host.
@Suite(.serialized) struct WebFleetTests {
    @Test func searchAndTheAppleSiliconReportSpanTheHostsOfTheDatabase() throws {
        let database = try PostgresServer()
        let fixture = try WebFixture()
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", "mac-a"], catalogue: fixture.catalogue).status == 0)
        // A second Mac with an Intel-only tool of its own.
        let other = TreeWriter(root: fixture.temporary.appending("other"))
        other.macApp("Applications/OldTool.app", identifier: "org.example.oldtool")
        other.file("Applications/OldTool.app/Contents/MacOS/OldTool", MachOImage.x86_64(uuid: MachOImage.uuid(seed: 4100)).bytes(), mode: 0o755)
        let otherCatalogue = fixture.temporary.appending("other.sqlite")
        #expect(try Subprocess.bundlefs(["index", other.root], catalogue: otherCatalogue).status == 0)
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", "mac-b"], catalogue: otherCatalogue).status == 0)

        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"), arguments: ["--database", database.url])
        func get(_ target: String, _ server: WebServerProcess) throws -> FetchedAnswer {
            try FetchedAnswer.get(server.url + target, headers: ["Accept-Language: de"], in: fixture.temporary)
        }
        // The same records as `query --database --json`, field for field, each with its host.
        let web = try JSONValue.parse(try get("/api/bundles?q=org.example.*", server).text)
        let cli = try Subprocess.bundlefs(["query", "--json", "--lang", "de", "--database", database.url, "org.example.*"], catalogue: fixture.catalogue)
        #expect(web == (try JSONValue.parse(cli.standardOutput)))
        #expect(Set(web.arrayValue?.compactMap { $0["host"]?.stringValue } ?? []) == ["mac-a", "mac-b"])
        // A word in another language, from the published records.
        let german = try JSONValue.parse(try get("/api/bundles?q=rechner", server).text)
        #expect(german.arrayValue?.map { [$0["host"]?.stringValue, $0["identifier"]?.stringValue] } == [["mac-a", "org.example.calculator"]])

        let report = try get("/reports/apple-silicon", server).text
        #expect(report.contains("org.example.legacy") && report.contains("org.example.oldtool"), "each host's Intel-only application")
        #expect(!report.contains("org.example.calculator"), "the universal one is native")
        #expect(report.contains("<td>mac-a</td>") && report.contains("<td>mac-b</td>"), "the counts per host")
        let rows = try JSONValue.parse(try get("/api/reports/apple-silicon", server).text).arrayValue ?? []
        #expect(Set(rows.compactMap { row in row["host"]?.stringValue.map { $0 + " " + (row["identifier"]?.stringValue ?? "") } })
                == ["mac-a org.example.legacy", "mac-b org.example.oldtool"])

        // A result links to its host's bundle page, made from the published record.
        let results = try get("/?q=oldtool", server).text
        let link = try #require(results.firstMatch(of: #/href="(/bundle\?host=mac-b&amp;path=[^"]+)"/#)).1
        let page = try get(link.replacingOccurrences(of: "&amp;", with: "&"), server)
        #expect(page.status == 200 && page.text.contains("org.example.oldtool") && page.text.contains("mac-b"))

        // --host: one Mac's rows only.
        let one = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web-b.log"),
                                       arguments: ["--database", database.url, "--host", "mac-b"])
        let only = try JSONValue.parse(try get("/api/bundles?q=org.example.*", one).text)
        #expect(only.arrayValue?.compactMap { $0["identifier"]?.stringValue } == ["org.example.oldtool"])
    }

    /// A word across the fleet is PostgreSQL's to match (issue 40: matching each record in the
    /// server was too slow at a million rows): each bundle's names, lower-cased in NFC, in a
    /// trigram index, found in any case and form, in any of the bundle's languages; a page lists
    /// 200 and counts all. A fleet server needs no local catalogue.
    @Test func aWordAcrossHostsFindsLocalizedNamesAndNeedsNoLocalCatalogue() throws {
        let database = try PostgresServer()
        let fixture = try WebFixture()
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", "mac-a"], catalogue: fixture.catalogue).status == 0)
        let other = TreeWriter(root: fixture.temporary.appending("other"))
        other.macApp("Applications/Cafe\u{301}.app", identifier: "org.example.cafe", // NFD, as macOS writes it
                     info: ["LSHasLocalizedDisplayName": .bool(true), "CFBundleDevelopmentRegion": .string("en")],
                     localizedStrings: ["ja": ["CFBundleDisplayName": "電卓アプリ"], "de": ["CFBundleName": "Größenrechner"]])
        for index in 0..<205 { other.macApp("Tools/Tool\(index).app", identifier: "org.example.tool\(index)") }
        let otherCatalogue = fixture.temporary.appending("other.sqlite")
        #expect(try Subprocess.bundlefs(["index", other.root], catalogue: otherCatalogue).status == 0)
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", "mac-b"], catalogue: otherCatalogue).status == 0)
        #expect(try database.psql("SELECT names FROM bundlefs_bundles WHERE identifier = 'org.example.cafe'").contains("caf\u{E9}.app\n"),
                "kept lower-cased, in NFC")

        // No catalogue at the path the server is given: it has none.
        let missing = fixture.temporary.appending("none.sqlite")
        let server = try WebServerProcess(catalogue: missing, logFile: fixture.temporary.appending("web.log"), arguments: ["--database", database.url])
        func found(_ q: String) throws -> [[String?]] {
            let escaped = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
            let answer = try FetchedAnswer.get(server.url + "/api/bundles?q=" + escaped, in: fixture.temporary)
            #expect(answer.status == 200, "q=\(q): \(answer.text)")
            return try JSONValue.parse(answer.text).arrayValue?.map { [$0["host"]?.stringValue, $0["identifier"]?.stringValue] } ?? []
        }
        #expect(try found("RECHNER") == [["mac-a", "org.example.calculator"], ["mac-b", "org.example.cafe"]], "German, any case, on each host")
        #expect(try found("電卓ア") == [["mac-b", "org.example.cafe"]], "Japanese")
        #expect(try found("CAF\u{C9}") == [["mac-b", "org.example.cafe"]], "typed in NFC, written in NFD")
        #expect(try found("größen") == [["mac-b", "org.example.cafe"]] && found("grossen").isEmpty)
        #expect(try found("100%").isEmpty && found("t_ol").isEmpty, "LIKE's wildcards are text")
        let page = try FetchedAnswer.get(server.url + "/?q=tool", in: fixture.temporary).text
        #expect(page.contains("205") && page.components(separatedBy: "org.example.tool").count - 1 == 200, "200 listed of 205")
        #expect(!FileManager.default.fileExists(atPath: missing), "no catalogue made")
    }
}
