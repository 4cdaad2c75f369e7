import BundleModel
import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// `open-with --database` across hosts published to a real PostgreSQL server the test starts:
/// every host's applications ranked together, each with its host, as one catalogue ranks its own.
@Suite struct OpenWithDatabaseTests {
    let temporary = TemporaryDirectory("open-with-database")

    static func claiming(_ ext: String, rank: String, role: String = "Viewer") -> [String: PlistValue] {
        ["CFBundleVersion": .string("1"), "CFBundleDocumentTypes": .array([.dictionary([
            "CFBundleTypeExtensions": .array([.string(ext)]), "LSHandlerRank": .string(rank), "CFBundleTypeRole": .string(role),
        ])])]
    }

    @Test func hostsApplicationsAreRankedTogether() throws {
        let server = try PostgresServer()
        let alpha = TreeWriter(root: temporary.appending("alpha")), beta = TreeWriter(root: temporary.appending("beta"))
        alpha.macApp("Apps/Notes.app", identifier: "org.example.notes", info: Self.claiming("note", rank: "Alternate"))
        beta.macApp("Apps/Notes.app", identifier: "org.example.notes-pro", info: Self.claiming("note", rank: "Owner", role: "Editor"))
        // Inside an archive, an application is not installed: it claims nothing.
        beta.macApp("Staging/Archived.app", identifier: "org.example.archived", info: Self.claiming("note", rank: "Owner"))
        #expect(try Subprocess.run("/usr/bin/zip", ["-qry", beta.path("Apps/Archived.zip"), "Archived.app"], directory: beta.path("Staging")).status == 0)
        beta.remove("Staging")
        for (tree, host) in [(alpha, "alpha"), (beta, "beta")] {
            let catalogue = temporary.appending("\(host).sqlite")
            #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue).status == 0)
            #expect(try Subprocess.bundlefs(["publish", server.url, "--host", host], catalogue: catalogue).status == 0)
        }
        let catalogue = temporary.appending("alpha.sqlite")
        let answer = try Subprocess.bundlefs(["open-with", "--extension", "note", "--json", "--database", server.url], catalogue: catalogue)
        #expect(answer.status == 0, "\(answer.standardError)")
        let handlers = try JSONValue.parse(answer.standardOutput).arrayValue ?? []
        #expect(handlers.map { [$0["host"]?.stringValue, $0["identifier"]?.stringValue, $0["rank"]?.stringValue] } == [
            ["beta", "org.example.notes-pro", "Owner"], ["alpha", "org.example.notes", "Alternate"],
        ])
        #expect(handlers.first?["default"] == .bool(true))
        let table = try Subprocess.bundlefs(["open-with", "--extension", "note", "--database", server.url, "--host", "alpha"], catalogue: catalogue)
        #expect(table.standardOutput.hasPrefix("HOST") && table.standardOutput.contains("org.example.notes") && !table.standardOutput.contains("notes-pro"))
        #expect(try Subprocess.bundlefs(["open-with", "--scheme", "https", "--database", server.url], catalogue: catalogue).status == 1)
        #expect(try Subprocess.bundlefs(["open-with", "--host", "alpha", "--extension", "note"], catalogue: catalogue).status != 0)

        // Rows a publisher of schema v4 sent have their claims (v3's) without v5's words: open-with
        // answers from them and names no host as without claims.
        try server.psql("UPDATE bundlefs_hosts SET rows_version = 4 WHERE host = 'alpha'")
        let older = try Subprocess.bundlefs(["open-with", "--extension", "note", "--database", server.url], catalogue: catalogue)
        #expect(older.status == 0 && older.standardOutput.contains("org.example.notes") && !older.standardError.contains("alpha"), "\(older)")
    }

    /// One spelling of a claimed type, from one function, for the local catalogue and PostgreSQL:
    /// an application claiming `Public.JPEG` is answered with the type as the system declares it.
    @Test func aClaimedTypeIsSpelledAlikeLocallyAndInPostgreSQL() throws {
        let server = try PostgresServer()
        let tree = TreeWriter(root: temporary.appending("alpha"))
        tree.macApp("Apps/Photos.app", identifier: "org.example.photos", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("Public.JPEG")]), "CFBundleTypeRole": .string("Viewer"),
        ])])])
        let catalogue = temporary.appending("alpha.sqlite")
        #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue).status == 0)
        #expect(try Subprocess.bundlefs(["publish", server.url, "--host", "alpha"], catalogue: catalogue).status == 0)
        func claims(_ extra: [String]) throws -> [String?] {
            let answer = try Subprocess.bundlefs(["open-with", "--extension", "jpg", "--json"] + extra, catalogue: catalogue)
            #expect(answer.status == 0, "\(answer.standardError)")
            return try JSONValue.parse(answer.standardOutput).arrayValue?.map { $0["claim"]?.stringValue } ?? []
        }
        #expect(try claims([]) == ["type public.jpeg"])
        #expect(try claims(["--database", server.url]) == ["type public.jpeg"])
    }

    /// An answer reads the applications that declare a type the question reaches and those that
    /// claim what it matches, not every one: an application whose record is unreadable in
    /// PostgreSQL but that has nothing to do with the question does not break it (reading every
    /// record did). A type one host's application declares is claimed by another host's, and the
    /// claim is spelled as the type's declaration spells it (the claims table keeps it lower-cased).
    @Test func onlyApplicationsThatCanMatchAreRead() throws {
        let server = try PostgresServer()
        let alpha = TreeWriter(root: temporary.appending("alpha")), beta = TreeWriter(root: temporary.appending("beta"))
        alpha.macApp("Apps/Declarer.app", identifier: "org.example.declarer", info: ["UTExportedTypeDeclarations": .array([.dictionary([
            "UTTypeIdentifier": .string("org.example.Sketch"), "UTTypeConformsTo": .array([.string("public.image")]),
            "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("sketchy")])]),
        ])])])
        alpha.macApp("Apps/Unrelated.app", identifier: "org.example.unrelated", info: Self.claiming("other", rank: "Owner"))
        beta.macApp("Apps/Sketcher.app", identifier: "org.example.sketcher", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("org.example.Sketch")]), "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Owner"),
        ])])])
        beta.macApp("Apps/Images.app", identifier: "org.example.images", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("public.image")]), "LSHandlerRank": .string("Owner"),
        ])])])
        for (tree, host) in [(alpha, "alpha"), (beta, "beta")] {
            let catalogue = temporary.appending("\(host).sqlite")
            #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue).status == 0)
            #expect(try Subprocess.bundlefs(["publish", server.url, "--host", host], catalogue: catalogue).status == 0)
        }
        try server.psql("UPDATE bundlefs_bundles SET record = '\\x00'::bytea WHERE identifier = 'org.example.unrelated'")

        let catalogue = temporary.appending("alpha.sqlite")
        let answer = try Subprocess.bundlefs(["open-with", "--extension", "SKETCHY", "--json", "--database", server.url], catalogue: catalogue)
        #expect(answer.status == 0, "\(answer.standardError)")
        let handlers = try JSONValue.parse(answer.standardOutput).arrayValue ?? []
        #expect(handlers.map { [$0["host"]?.stringValue, $0["identifier"]?.stringValue, $0["claim"]?.stringValue, $0["displayName"]?.stringValue] } == [
            ["beta", "org.example.sketcher", "type org.example.Sketch", "Sketcher"], ["beta", "org.example.images", "type public.image", "Images"],
        ])
        // Without the declaring host, the extension names no type the claims reach.
        let betaAlone = try Subprocess.bundlefs(["open-with", "--extension", "sketchy", "--database", server.url, "--host", "beta"], catalogue: catalogue)
        #expect(betaAlone.status == 1, "\(betaAlone)")
        // The unreadable record is still an error when its application is asked about.
        let unreadable = try Subprocess.bundlefs(["open-with", "--extension", "other", "--database", server.url], catalogue: catalogue)
        #expect(unreadable.status == 1 && unreadable.standardError.contains("not a bundle record"), "\(unreadable)")
    }
}
