import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// The claims and type tags a daemon publishes (`bundlefs_launch_claims`, `bundlefs_type_tags`,
/// schema v3): they follow the catalogue through batches, and a database migrated from v2, whose
/// rows have none, gets them from each host's next publisher.
@Suite(.serialized) struct PublishWatchClaimsTests {
    static func claiming(_ ext: String, rank: String) -> [String: PlistValue] {
        ["CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string(ext)]), "LSHandlerRank": .string(rank)])])]
    }

    /// An application claiming a type in two spellings (one row: the key holds it lower-cased) and
    /// declaring it, and one claiming an extension.
    static let notes: [String: PlistValue] = [
        "CFBundleDocumentTypes": .array([.dictionary([
            "LSItemContentTypes": .array([.string("org.example.Note"), .string("org.example.note")]),
            "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Owner"),
        ])]),
        "UTExportedTypeDeclarations": .array([.dictionary([
            "UTTypeIdentifier": .string("org.example.Note"), "UTTypeConformsTo": .array([.string("public.text")]),
            "UTTypeTagSpecification": .dictionary([
                "public.filename-extension": .array([.string("NOTE")]), "public.mime-type": .array([.string("Text/X-Note")]),
            ]),
        ])]),
    ]

    static let claimsSQL = """
        SELECT b.identifier, c.target_kind, c.target, c.role, c.rank FROM bundlefs_launch_claims c JOIN bundlefs_bundles b USING (host, path)
        ORDER BY 1, 2, 3
        """
    static let tagsSQL = """
        SELECT b.identifier, t.kind, t.value, t.type_key FROM bundlefs_type_tags t JOIN bundlefs_bundles b USING (host, path) ORDER BY 1, 2, 3
        """

    @Test func claimsFollowTheDaemonsBatches() throws {
        let server = try PostgresServer()
        let host = PublishingHost("claims")
        host.tree.macApp("Apps/Notes.app", identifier: "org.example.notes", info: Self.notes)
        host.tree.macApp("Apps/Viewer.app", identifier: "org.example.viewer", info: Self.claiming("note", rank: "Alternate"))
        try host.start(publishingTo: server.url)
        try host.converge(to: server.url, "the first index")
        #expect(try server.psql(Self.claimsSQL) == "org.example.notes|type|org.example.note|Editor|Owner\norg.example.viewer|extension|note|Viewer|Alternate")
        #expect(try server.psql(Self.tagsSQL) == """
            org.example.notes|extension|note|org.example.note
            org.example.notes|identifier|org.example.note|org.example.note
            org.example.notes|mime|text/x-note|org.example.note
            """)
        let before = try host.bundlefs(["open-with", "--extension", "note", "--json", "--database", server.url])
        #expect(before.status == 0, "\(before)")
        #expect(try JSONValue.parse(before.standardOutput).arrayValue?.compactMap { $0["identifier"]?.stringValue } == ["org.example.notes", "org.example.viewer"])

        host.tree.remove("Apps/Notes.app")
        host.tree.macApp("Apps/Viewer.app", identifier: "org.example.viewer", info: Self.claiming("memo", rank: "Alternate"))
        try host.converge(to: server.url, "a removal and a change")
        #expect(try server.psql(Self.claimsSQL) == "org.example.viewer|extension|memo|Viewer|Alternate")
        #expect(try server.psql(Self.tagsSQL) == "")
        // Batches carried them: the host was sent whole once, when it was new.
        #expect(host.watcher!.log.components(separatedBy: " whole to ").count == 2, "\(host.watcher!.log)")
        #expect(try host.bundlefs(["open-with", "--extension", "note", "--database", server.url]).status == 1)
        #expect(try host.bundlefs(["open-with", "--extension", "memo", "--database", server.url]).standardOutput.contains("org.example.viewer"))
        #expect(try host.watcher!.stop() == 0)
    }

    /// A database at v2 (tables and the `rows_version` column of v3, the names of v4 and the words of v5 taken away, and the rows they
    /// held: what a v2 publisher left) is refused by `open-with --database` until a publisher of
    /// this version migrates it; then each host's next publisher sends it whole, though its queue
    /// would have let it resume, and until it has, `open-with` names the host it leaves out.
    @Test func aVersion2DatabaseIsSentWholeByEachHostsNextPublisher() throws {
        let server = try PostgresServer()
        let alpha = PublishingHost("alpha"), beta = PublishingHost("beta")
        alpha.tree.macApp("Apps/Notes.app", identifier: "org.example.notes", info: Self.claiming("note", rank: "Owner"))
        beta.tree.macApp("Apps/Memo.app", identifier: "org.example.memo", info: Self.claiming("note", rank: "Alternate"))
        for host in [alpha, beta] {
            try host.start(publishingTo: server.url)
            try host.converge(to: server.url, "\(host.name) first")
            #expect(try host.watcher!.stop() == 0)
        }
        try server.psql("""
            DROP TABLE bundlefs_name_words, bundlefs_launch_claims, bundlefs_type_tags; ALTER TABLE bundlefs_hosts DROP COLUMN rows_version;
            ALTER TABLE bundlefs_bundles DROP COLUMN names; DELETE FROM bundlefs_schema WHERE version >= 3
            """)
        let refused = try alpha.bundlefs(["open-with", "--extension", "note", "--database", server.url])
        #expect(refused.status == 1 && refused.standardError.contains("version 2") && refused.standardError.contains("bundlefs publish"), "\(refused)")
        #expect(try alpha.bundlefs(["query", "--database", server.url]).status == 0)

        func claims(_ host: String) throws -> String { try server.psql("SELECT count(*) FROM bundlefs_launch_claims WHERE host = '\(host)'") }
        let betaAgain = try beta.start(publishingTo: server.url)
        try poll(timeout: 60, "beta's claims") { try claims("beta") == "1" }
        #expect(betaAgain.log.contains("sent by an older bundlefs"), "\(betaAgain.log)")
        #expect(try server.psql("SELECT max(version) FROM bundlefs_schema") == "5")
        let half = try alpha.bundlefs(["open-with", "--extension", "note", "--database", server.url])
        #expect(half.status == 0 && half.standardOutput.contains("org.example.memo") && !half.standardOutput.contains("org.example.notes"), "\(half)")
        #expect(half.standardError.contains("host alpha") && !half.standardError.contains("host beta"), "\(half)")

        let alphaAgain = try alpha.start(publishingTo: server.url)
        try poll(timeout: 60, "alpha's claims") { try claims("alpha") == "1" }
        #expect(alphaAgain.log.contains("sent by an older bundlefs"), "\(alphaAgain.log)")
        let whole = try alpha.bundlefs(["open-with", "--extension", "note", "--json", "--database", server.url])
        #expect(whole.status == 0 && whole.standardError.isEmpty, "\(whole)")
        #expect(try JSONValue.parse(whole.standardOutput).arrayValue?.compactMap { $0["identifier"]?.stringValue } == ["org.example.notes", "org.example.memo"])

        // The whole sends were the migration's: a publisher started again resumes from its queue.
        #expect(try betaAgain.stop() == 0)
        let betaResumed = try beta.start(publishingTo: server.url)
        try poll(timeout: 30, "beta's publisher to be current") { try beta.publishing()?["state"] == .string("current") }
        #expect(!betaResumed.log.contains(" whole "), "\(betaResumed.log)")
        #expect(try betaResumed.stop() == 0)
        #expect(try alphaAgain.stop() == 0)
    }
}
