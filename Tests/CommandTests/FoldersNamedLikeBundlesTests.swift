import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// Folders that only carry a bundle's extension (Docs/folders-named-like-bundles.md), as
/// `bundlefs index /usr` meets them on Debian: counted apart in the index's summary, without
/// errors, left out of `query` unless asked for by kind, never a handler.
@Suite struct FoldersNamedLikeBundlesTests {
    let temporary = TemporaryDirectory("named-like-bundles")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("usr")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    func bundlefs(_ arguments: String...) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue)
    }

    @Test func theSummaryCountsThemApartAndQueryLeavesThemOut() throws {
        // Debian's documentation folder of a package named `*.app`, a library folder so named, a
        // header-only framework; one real application and one broken Mac bundle beside them.
        tree.text("share/doc/libfoo.app/copyright", "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
        tree.text("lib/x86_64-linux-gnu/nagios.app/lib/plugin.so", "")
        tree.text("include/Header.framework/Versions/A/Headers/header.h", "int f(void);\n")
        tree.symlink("include/Header.framework/Versions/Current", to: "A")
        tree.macApp("Applications/Chess.app", identifier: "com.example.chess", info: ["CFBundleDocumentTypes": .array([.dictionary([
            "CFBundleTypeExtensions": .array([.string("pgn")]), "CFBundleTypeRole": .string("Editor"),
        ])])])
        tree.directory("Applications/Broken.app/Contents/MacOS")
        let index = try bundlefs("index", tree.root)
        #expect(index.status == 0, "\(index)")
        #expect(index.standardOutput.contains(": 2 bundles and packages (1 with errors), 3 folders named like bundles in "), "\(index.standardOutput)")

        func paths(_ arguments: String...) throws -> [String] {
            let result = try Subprocess.bundlefs(["query", "--json"] + arguments, catalogue: catalogue)
            return try JSONValue.parse(result.standardOutput).arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        }
        #expect(try paths() == [tree.path("Applications/Broken.app"), tree.path("Applications/Chess.app")])
        #expect(try paths("--kind", "folder") == [
            tree.path("include/Header.framework"), tree.path("lib/x86_64-linux-gnu/nagios.app"), tree.path("share/doc/libfoo.app"),
        ])
        #expect(try paths("--kind", "application") == [tree.path("Applications/Broken.app"), tree.path("Applications/Chess.app")])
        // No handler among them: only Chess opens its documents.
        let handlers = try JSONValue.parse(try bundlefs("open-with", "--extension", "pgn", "--json", "--all").standardOutput).arrayValue ?? []
        #expect(handlers.compactMap { $0["path"]?.stringValue } == [tree.path("Applications/Chess.app")])
    }
}
