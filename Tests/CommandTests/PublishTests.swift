import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// `bundlefs publish` and `query --database` against a real PostgreSQL server the test starts
/// (SPEC.md, "Many hosts, one catalogue").
@Suite struct PublishTests {
    let temporary = TemporaryDirectory("publish")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    func bundlefs(_ arguments: [String], catalogue: String? = nil) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue ?? self.catalogue)
    }

    /// The sample tree, plus names that are bytes: NFC and NFD twins, invalid UTF-8, a control
    /// character, and an identifier in mixed case.
    func writeTree() throws {
        SampleTree.write(to: tree.root)
        let payload = TreeWriter(root: temporary.appending("payload"))
        payload.macApp("Editor.app", identifier: "com.example.editor")
        tree.directory("Repository")
        try InstallerPackageBuilder.build(tree.path("Repository/Editor.pkg"), components: [
            .init(identifier: "com.example.editor.pkg", version: "1", installLocation: "/Applications", payload: payload.root),
        ], staging: temporary.appending("staging"))
        tree.macApp("Names/\(PublishNames.nfc)/Writer.app", identifier: "com.example.Writer.NFC")
        tree.macApp("Names/\(PublishNames.nfd)/Writer.app", identifier: "com.example.writer.nfd")
        tree.macApp("Names/\(PublishNames.invalid).app", identifier: "com.example.bytes")
        tree.macApp("Names/Tab\tName.app", identifier: "com.example.tab")
        tree.timeMachineBackup("Backups/Studio.sparsebundle")
    }

    /// Every query form answered from PostgreSQL equals the local catalogue's answer, table and
    /// JSON, with the host added.
    @Test func databaseQueriesEqualLocalOnes() throws {
        let server = try PostgresServer()
        try writeTree()
        #expect(try bundlefs(["index", tree.root]).status == 0)
        let published = try bundlefs(["publish", server.url, "--host", "alpha"])
        #expect(published.status == 0, "\(published)")
        #expect(published.standardOutput.contains("as host alpha"))
        let count = try JSONValue.parse(try bundlefs(["query", "--json"]).standardOutput).arrayValue?.count ?? 0
        #expect(count > 20)
        // Every record is published, folders named like bundles too (query lists them by kind).
        let folders = try JSONValue.parse(try bundlefs(["query", "--json", "--kind", "folder"]).standardOutput).arrayValue?.count ?? 0
        #expect(folders > 0)
        #expect(try server.psql("SELECT count(*) FROM bundlefs_bundles WHERE host = 'alpha'") == "\(count + folders)")

        let uuid = BinarySlice.canonicalUUID(BenchmarkTree.uuid(0))
        let queries: [[String]] = [
            [], ["org.gnustep.Chess"], ["ORG.GNUSTEP.CHESS"], ["com.example.*"], ["*writer*"], ["com.example.?ytes"], ["--kind", "framework"],
            ["--under", tree.path("Names")], ["--under", tree.path("Names/\(PublishNames.nfd)")], ["--arch", "arm64"], ["--arch", "x86_64"],
            ["--in-archives"], ["--no-archives", "--kind", "application"], ["no.such.identifier"], ["--uuid", uuid], ["--kind", "backup"],
            ["--kind", "folder"],
        ] + (try sampleUUIDs()).map { ["--uuid", $0] }
        for query in queries {
            let local = try bundlefs(["query", "--json"] + query)
            let remote = try bundlefs(["query", "--json", "--database", server.url] + query)
            let remoteObjects = try JSONValue.parse(remote.standardOutput).arrayValue ?? []
            // No match is status 1 (and `[]`), from either.
            #expect(local.status == remote.status && remote.status == (remoteObjects.isEmpty ? 1 : 0), "\(query): \(remote)")
            #expect(remoteObjects.allSatisfy { $0["host"] == .string("alpha") }, "\(query)")
            #expect(try JSONValue.parse(local.standardOutput) == .array(remoteObjects.map(Self.withoutHost)), "\(query)")

            let localTable = try bundlefs(["query"] + query).standardOutput
            let remoteTable = try bundlefs(["query", "--database", server.url, "--host", "alpha"] + query).standardOutput
            #expect(Self.withoutHostColumn(remoteTable) == Self.normalizedTable(localTable), "\(query)")
        }
        // A repository's installers: what each installs, and where.
        let installed = try JSONValue.parse(try bundlefs(["query", "--in-archives", "--json", "--database", server.url, "com.example.editor"]).standardOutput)
        #expect(installed.arrayValue?.map { $0["installsTo"] } == [.string("/Applications/Editor.app")], "\(installed)")
        // The fleet's backup inventory: which Macs are backed up where, and when last.
        let backups = try JSONValue.parse(try bundlefs(["query", "--kind", "backup", "--json", "--database", server.url]).standardOutput).arrayValue
        #expect(backups?.map { $0["backup"]?["model"] } == [.string(TreeWriter.Backup().model)])
        #expect(backups?.first?["backup"]?["lastSnapshot"] == .string(PlistDate.formatISO8601(TreeWriter.Backup().snapshots.max()!)))
    }

    /// Two hosts in one database: each answers for itself, both together in host order;
    /// publishing again replaces a host's rows and leaves the other's.
    @Test func hostsAreKeptApart() throws {
        let server = try PostgresServer()
        let other = temporary.appending("other.sqlite")
        tree.macApp("A/Tool.app", identifier: "com.example.tool")
        tree.macApp("A/OnlyHere.app", identifier: "com.example.only-alpha")
        #expect(try bundlefs(["index", tree.root]).status == 0)
        let second = TreeWriter(root: temporary.appending("second"))
        second.macApp("B/Tool.app", identifier: "com.example.tool")
        #expect(try bundlefs(["index", second.root], catalogue: other).status == 0)
        #expect(try bundlefs(["publish", server.url, "--host", "alpha"]).status == 0)
        #expect(try bundlefs(["publish", server.url, "--host", "beta"], catalogue: other).status == 0)

        let both = try JSONValue.parse(try bundlefs(["query", "com.example.tool", "--json", "--database", server.url]).standardOutput)
        #expect(both.arrayValue?.map { [$0["host"]?.stringValue, $0["path"]?.stringValue] } == [
            ["alpha", tree.path("A/Tool.app")], ["beta", second.path("B/Tool.app")],
        ])
        let table = try bundlefs(["query", "com.example.tool", "--database", server.url]).standardOutput
        #expect(table.hasPrefix("HOST"))
        #expect(table.contains("alpha") && table.contains("beta"))

        tree.remove("A/OnlyHere.app")
        #expect(try bundlefs(["index", tree.root]).status == 0)
        #expect(try bundlefs(["publish", server.url, "--host", "alpha"]).status == 0)
        #expect(try server.psql("SELECT host, count(*) FROM bundlefs_bundles GROUP BY host ORDER BY host") == "alpha|1\nbeta|1")
        #expect(try server.psql("SELECT max(version) FROM bundlefs_schema") == "5")
    }

    /// A one-off copy of a host that a daemon publishes would be overwritten by the daemon's next
    /// whole send, and would overwrite its rows meanwhile: it is refused, on one line naming the
    /// host and the daemon, and the daemon's rows stay. Another host, or the same once the daemon
    /// stopped, is copied.
    @Test func aOneOffCopyOfAHostADaemonPublishesIsRefused() throws {
        let server = try PostgresServer()
        let daemonTree = TreeWriter(root: temporary.appending("daemon-tree"))
        daemonTree.macApp("B/Daemon.app", identifier: "com.example.daemon")
        let daemonCatalogue = temporary.appending("daemon.sqlite")
        let daemon = try WatcherProcess(roots: [daemonTree.root], catalogue: daemonCatalogue, logFile: temporary.appending("daemon.log"),
                                        arguments: ["--publish", server.url, "--host", "alpha"])
        try daemon.waitUntilWatching()
        try poll(timeout: 30, "the daemon to publish alpha") {
            let status = try JSONValue.parse(try bundlefs(["status", "--json"], catalogue: daemonCatalogue).standardOutput)
            return status["publishing"]?["state"] == .string("current")
        }
        tree.macApp("A/Tool.app", identifier: "com.example.tool")
        #expect(try bundlefs(["index", tree.root]).status == 0)

        let refused = try bundlefs(["publish", server.url, "--host", "alpha"])
        #expect(refused.status == 1, "\(refused)")
        let lines = refused.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(refused)")
        #expect(refused.standardError.contains("host alpha") && refused.standardError.contains("pid \(daemon.pid)"), "\(refused)")
        #expect(try server.psql("SELECT string_agg(identifier, ',') FROM bundlefs_bundles WHERE host = 'alpha'") == "com.example.daemon")

        #expect(try bundlefs(["publish", server.url, "--host", "beta"]).status == 0)
        #expect(try daemon.stop() == 0)
        let published = try bundlefs(["publish", server.url, "--host", "alpha"])
        #expect(published.status == 0, "\(published)")
        #expect(try server.psql("SELECT string_agg(identifier, ',') FROM bundlefs_bundles WHERE host = 'alpha'") == "com.example.tool")
    }

    /// Errors name the database without its password, and say what is wrong.
    @Test func errorsAreClearAndKeepPasswordsOut() throws {
        tree.macApp("A/Tool.app", identifier: "com.example.tool")
        #expect(try bundlefs(["index", tree.root]).status == 0)
        let away = "postgresql://someone:hunter2@/postgres?host=\(temporary.appending("nothing-here"))&password=hunter3"
        for arguments in [["publish", away], ["query", "--database", away]] {
            let result = try bundlefs(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError.contains("postgresql://someone@/postgres?host="), "\(result)")
            #expect(result.standardError.contains("No such file") || result.standardError.contains("connect"), "\(result)")
            #expect(!result.standardError.contains("hunter"), "\(result)")
        }
        // Malformed strings: libpq's complaint would quote the password; ours quotes nothing.
        for malformed in ["postgresql://someone:hunter%zz@/postgres", "host=/nowhere password=hun ter2 dbname=x"] {
            for arguments in [["publish", malformed], ["query", "--database", malformed]] {
                let result = try bundlefs(arguments)
                #expect(result.status == 1 && result.standardError.contains("malformed"), "\(result)")
                #expect(!result.standardError.contains("hunter") && !result.standardError.contains("ter2"), "\(result)")
            }
        }
        #expect(try bundlefs(["publish", "not a url"]).standardError.contains("not a PostgreSQL connection string"))
        #expect(!(try bundlefs(["publish", "mysql://someone:hunter2@db"]).standardError.contains("hunter")))
        #expect(try bundlefs(["query", "--host", "alpha"]).standardError.contains("--database"))

        let server = try PostgresServer()
        let empty = try bundlefs(["query", "--database", server.url])
        #expect(empty.status == 1 && empty.standardError.contains("no bundlefs catalogue in this database"), "\(empty)")
    }

    // MARK: Helpers

    func sampleUUIDs() throws -> [String] {
        let all = try JSONValue.parse(try bundlefs(["query", "--json"]).standardOutput).arrayValue ?? []
        let uuids = all.flatMap { $0["binaries"]?.arrayValue ?? [] }.compactMap { $0["uuid"]?.stringValue }
        return Array(Set(uuids)).sorted().prefix(3).map { $0 }
    }

    static func withoutHost(_ object: JSONValue) -> JSONValue {
        guard case let .object(members) = object else { return object }
        return .object(members.filter { $0.0 != "host" })
    }

    /// A table's lines without trailing spaces (column widths differ with the host column).
    static func normalizedTable(_ text: String) -> [String] {
        text.split(separator: "\n").map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
    }

    static func withoutHostColumn(_ text: String) -> [String] {
        normalizedTable(text).map { line in
            guard let space = line.firstIndex(of: " ") else { return line }
            return String(line[line.index(after: space)...])
        }
    }
}

enum PublishNames {
    static let nfc = "R\u{E9}sum\u{E9}"
    static let nfd = "Re\u{301}sume\u{301}"
    static let invalid = FileNameCoding.string(from: [0x42, 0x79, 0x74, 0xE9, 0xFF])
}
