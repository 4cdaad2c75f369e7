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
    /// server was too slow at a million rows): the words of each bundle's names, lower-cased in
    /// NFC, a B-tree of them (schema v5), found in any case and form, in any of the bundle's
    /// languages, where they begin a word; a page lists 200 and counts all. A fleet server needs
    /// no local catalogue.
    @Test func aWordAcrossHostsFindsLocalizedNamesAndNeedsNoLocalCatalogue() throws {
        let database = try PostgresServer()
        let fixture = try WebFixture()
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", "mac-a"], catalogue: fixture.catalogue).status == 0)
        let other = TreeWriter(root: fixture.temporary.appending("other"))
        other.macApp("Applications/Cafe\u{301}.app", identifier: "org.example.cafe", // NFD, as macOS writes it
                     info: ["LSHasLocalizedDisplayName": .bool(true), "CFBundleDevelopmentRegion": .string("en")],
                     localizedStrings: ["ja": ["CFBundleDisplayName": "電卓アプリ"], "de": ["CFBundleName": "Größenrechner"],
                                        "fr": ["CFBundleDisplayName": "TV " + String(repeating: "x", count: 5_000)]])
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
        #expect(try found("RECHNER") == [["mac-a", "org.example.calculator"]], "German, any case")
        #expect(try found("größen") == [["mac-b", "org.example.cafe"]] && found("grossen").isEmpty)
        #expect(try found("größenrechner") == [["mac-b", "org.example.cafe"]])
        #expect(try found("rechn") == [["mac-a", "org.example.calculator"]], "the beginning of a word, not its inside (Docs/web.md)")
        #expect(try found("電卓ア") == [["mac-b", "org.example.cafe"]] && found("アプリ").isEmpty, "Japanese: a run of letters is one word")
        #expect(try found("CAF\u{C9}") == [["mac-b", "org.example.cafe"]], "typed in NFC, written in NFD")
        #expect(try found("100%").isEmpty && found("t_ol").isEmpty, "LIKE's wildcards are text")
        #expect(try found("example.cafe") == [["mac-b", "org.example.cafe"]], "the text as typed: words and what is between them")
        #expect(try found("cafe.example").isEmpty, "both words are there, not in that order")
        #expect(try found("tv") == [["mac-b", "org.example.cafe"]], "two letters are a word too")
        #expect(try found("tv " + String(repeating: "x", count: 300)) == [["mac-b", "org.example.cafe"]], "a word longer than a B-tree keeps")
        let page = try FetchedAnswer.get(server.url + "/?q=tool", in: fixture.temporary).text
        #expect(page.contains("205") && page.components(separatedBy: "org.example.tool").count - 1 == 200, "200 listed of 205")
        #expect(!FileManager.default.fileExists(atPath: missing), "no catalogue made")
    }

    /// Tool0.app to Tool299.app (`org.example.toolN`) indexed and published as `host`: the rows the
    /// page tests copy to more hosts in SQL.
    private func publishTools(to database: PostgresServer, as host: String, in fixture: WebFixture) throws {
        let tree = TreeWriter(root: fixture.temporary.appending("tools"))
        for index in 0..<300 { tree.macApp("Tools/Tool\(index).app", identifier: "org.example.tool\(index)") }
        let catalogue = fixture.temporary.appending("tools.sqlite")
        #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue).status == 0)
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", host], catalogue: catalogue).status == 0)
    }

    /// A results page across a million rows does not count them all (issue 40): past 1,000 it says
    /// "more than 1,000", and still lists its 200; the JSON gives every match.
    @Test func aPageCountsUpTo1000() throws {
        let database = try PostgresServer()
        let fixture = try WebFixture()
        try publishTools(to: database, as: "mac-1", in: fixture)
        // Four more hosts with the same tools, copied in SQL: 1,500 matches.
        try database.psql("""
            INSERT INTO bundlefs_hosts SELECT 'mac-' || n, catalogue, sent_through, bundles, whole_at, updated_at, rows_version
                FROM bundlefs_hosts, generate_series(2, 5) n WHERE host = 'mac-1';
            INSERT INTO bundlefs_bundles SELECT 'mac-' || n, path, path_text, identifier, identifier_key, kind, name, version, short_version,
                in_archive, error_count, record, names FROM bundlefs_bundles, generate_series(2, 5) n WHERE host = 'mac-1';
            INSERT INTO bundlefs_name_words SELECT 'mac-' || n, path, word FROM bundlefs_name_words, generate_series(2, 5) n WHERE host = 'mac-1';
            """)
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"), arguments: ["--database", database.url])
        let page = try FetchedAnswer.get(server.url + "/?q=tool", in: fixture.temporary).text
        #expect(page.contains("more than 1,000 bundles") && page.components(separatedBy: "org.example.tool").count - 1 == 200, "\(page)")
        let every = try JSONValue.parse(try FetchedAnswer.get(server.url + "/api/bundles?q=tool", in: fixture.temporary).text)
        #expect(every.arrayValue?.count == 1_500)
        let few = try FetchedAnswer.get(server.url + "/?q=tool1", in: fixture.temporary).text
        #expect(few.contains("555 bundles"), "tool1, tool10 to 19, tool100 to 199 on 5 hosts, counted exactly")
    }

    /// A page of a rare word and a common one across hosts (issue 40): read from the rare word's
    /// rows, it lists exactly the bundles of every host that have both, by host then path, and
    /// counts them as before (exactly up to 1,000, then "more than").
    @Test func aRareWordWithACommonOneListsEveryHostsMatchesInOrder() throws {
        let database = try PostgresServer()
        let fixture = try WebFixture()
        try publishTools(to: database, as: "mac-01", in: fixture)
        // Nine more hosts, each without one of the tools, copied in SQL.
        try database.psql("""
            INSERT INTO bundlefs_hosts SELECT 'mac-' || to_char(n, 'FM00'), catalogue, sent_through, bundles, whole_at, updated_at, rows_version
                FROM bundlefs_hosts, generate_series(2, 10) n WHERE host = 'mac-01';
            INSERT INTO bundlefs_bundles SELECT 'mac-' || to_char(n, 'FM00'), path, path_text, identifier, identifier_key, kind, name, version,
                short_version, in_archive, error_count, record, names FROM bundlefs_bundles, generate_series(2, 10) n
                WHERE host = 'mac-01' AND identifier <> 'org.example.tool' || (100 + n);
            INSERT INTO bundlefs_name_words SELECT b.host, w.path, w.word FROM bundlefs_bundles b JOIN bundlefs_name_words w
                ON w.host = 'mac-01' AND w.path = b.path WHERE b.host <> 'mac-01';
            ANALYZE;
            """)
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"), arguments: ["--database", database.url])
        func listed(_ q: String) throws -> (page: String, bundles: [String]) {
            let page = try FetchedAnswer.get(server.url + "/?q=" + (q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q), in: fixture.temporary).text
            let links = page.matches(of: #/href="/bundle\?host=(mac-\d+)&amp;path=[^"]*/Tool(\d+)\.app"/#).map { "\($0.1) \($0.2)" }
            return (page, links)
        }
        func expected(_ tools: [Int]) -> [String] {
            (1...10).flatMap { host in
                tools.filter { host == 1 || $0 != 100 + host }.map { String(format: "mac-%02d %d", host, $0) }
            }
        }
        // `example` is in every bundle's identifier; `tool29` in 11 a host's (Tool29, Tool290 to Tool299; paths in byte order).
        let rare = try listed("example.tool29")
        #expect(rare.bundles == expected([29] + Array(290...299)))
        #expect(rare.page.contains("\(rare.bundles.count) bundles"))
        // 111 a host, 1 less on mac-02 to mac-10 (tool102 to tool110): the first 200 of 1,101, and "more than".
        let many = try listed("example.tool1")
        let tools1 = [1] + Array(10...19) + Array(100...199)
        #expect(many.bundles == Array(expected(tools1.sorted { "Tool\($0).app".utf8.lexicographicallyPrecedes("Tool\($1).app".utf8) }).prefix(200)))
        #expect(many.page.contains("more than 1,000 bundles"), "\(many.page)")
        // The JSON (no page: no start) lists the same, all of them; a glob's literal beginning starts a page too.
        let json = try JSONValue.parse(try FetchedAnswer.get(server.url + "/api/bundles?q=example.tool1", in: fixture.temporary).text).arrayValue ?? []
        #expect(json.count == 1_101 && Array(json.prefix(200)).map { "\($0["host"]?.stringValue ?? "") \($0["identifier"]?.stringValue?.dropFirst(16) ?? "")" } == many.bundles)
        #expect(try listed("org.example.tool1*").bundles == many.bundles)
        #expect(try listed("org.example.tool29?").bundles == expected(Array(290...299)))
        // On one host (`--host`): only its rows, counted exactly.
        let one = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web-3.log"),
                                       arguments: ["--database", database.url, "--host", "mac-03"])
        let onHost = try FetchedAnswer.get(one.url + "/?q=example.tool1", in: fixture.temporary).text
        #expect(onHost.contains("110 bundles") && !onHost.contains("mac-01"), "\(onHost)")
    }

    /// The server keeps its connections between requests (issue 40: connecting cost more than a
    /// search), and one that the database closed is dropped: stopped, a search is a 503 naming the
    /// database, and the server goes on; restarted, the next search answers.
    @Test func connectionsAreKeptAndSurviveARestartOfTheDatabase() throws {
        let database = try PostgresServer()
        let fixture = try WebFixture()
        #expect(try Subprocess.bundlefs(["publish", database.url, "--host", "mac-a"], catalogue: fixture.catalogue).status == 0)
        let server = try WebServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("web.log"), arguments: ["--database", database.url])
        func search() throws -> FetchedAnswer { try FetchedAnswer.get(server.url + "/api/bundles?q=rechner", in: fixture.temporary) }
        func calculator(_ answer: FetchedAnswer) throws -> Bool {
            guard answer.status == 200 else { return false }
            return try JSONValue.parse(answer.text).arrayValue?.compactMap { $0["identifier"]?.stringValue } == ["org.example.calculator"]
        }
        let backends = "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        #expect(try calculator(search()))
        let first = try database.psql(backends)
        #expect(!first.isEmpty && !first.contains(","), "one connection, kept: \(first)")
        for _ in 0..<3 { #expect(try calculator(search())) }
        #expect(try database.psql(backends) == first, "the same connection answered each search")

        try database.stop()
        let down = try search()
        #expect(down.status == 503 && down.text.contains(database.directory) && down.headers["retry-after"] != nil, "\(down.status) \(down.text)")
        #expect(server.process.isRunning)
        try database.start()
        #expect(try calculator(search()), "the first search after the restart answers")
        #expect(try database.psql(backends) != first)
    }
}
