import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Flat installer packages through `show`, `index` and `query` (rule 33): a component package and
/// a product archive of two components, built as xar archives by `bsdtar --format xar` from files
/// our code wrote, show their product, their components and what each says it installs, and
/// where; the bundles in their payloads are catalogued with the path each installs to.
@Suite struct InstallerCommandTests {
    let temporary = TemporaryDirectory("installer-commands")
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    static func packageInfo(_ identifier: String, version: String, location: String, bundle: (id: String, path: String)?) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <pkg-info format-version="2" identifier="\(identifier)" version="\(version)" install-location="\(location)" auth="root">
            <payload numberOfFiles="3" installKBytes="12"/>
            \(bundle.map { "<bundle-version><bundle id=\"\($0.id)\" CFBundleShortVersionString=\"\(version)\" path=\"\($0.path)\"/></bundle-version>" } ?? "<bundle-version/>")
        </pkg-info>
        """
    }

    /// A xar of the files under `source`, at `archive`.
    func xar(_ source: TreeWriter, _ archive: String) throws {
        let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", archive, "--format", "xar", "-C", source.root, "."])
        try #require(made.status == 0, "\(made)")
    }

    @Test func componentsAndProductsAreShown() throws {
        let component = TreeWriter(root: temporary.appending("component"))
        component.text("PackageInfo", Self.packageInfo("com.example.tool.pkg", version: "3.2", location: "/usr/local", bundle: nil))
        component.file("Payload", [0x1F, 0x8B, 0x08, 0x00])
        component.text("Bom", "")
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.directory(".")
        try xar(component, tree.path("Tool.pkg"))

        let product = TreeWriter(root: temporary.appending("product"))
        product.text("Distribution", """
            <?xml version="1.0" encoding="utf-8"?>
            <installer-gui-script minSpecVersion="2"><title>Example Suite</title>
            <pkg-ref id="com.example.editor.pkg" version="2.1">#Editor.pkg</pkg-ref><pkg-ref id="com.example.viewer.pkg">#Viewer.pkg</pkg-ref>
            <product id="com.example.suite" version="2.1.0"/></installer-gui-script>
            """)
        product.text("Editor.pkg/PackageInfo", Self.packageInfo("com.example.editor.pkg", version: "2.1", location: "/Applications",
                                                                bundle: ("com.example.editor", "./Editor.app")))
        product.file("Editor.pkg/Payload", [0x1F, 0x8B])
        product.text("Viewer.pkg/PackageInfo", "<pkg-info identifier=\"com.example.viewer.pkg\"")
        try xar(product, tree.path("Suite.pkg"))

        let shownTool = try Subprocess.bundlefs(["show", tree.path("Tool.pkg")], catalogue: catalogue)
        #expect(shownTool.standardOutput.contains("Component:     com.example.tool.pkg 3.2 into /usr/local"), "\(shownTool)")
        // Its payload is four bytes of gzip's magic: an error under the component.
        #expect(shownTool.standardOutput.contains("Payload error: the payload is not a cpio archive"), "\(shownTool)")
        #expect(!shownTool.standardOutput.contains("Product:"))

        let shownSuite = try Subprocess.bundlefs(["show", tree.path("Suite.pkg")], catalogue: catalogue)
        let text = shownSuite.standardOutput
        #expect(text.contains("Product:") && text.contains("Example Suite 2.1.0 (com.example.suite)"), "\(shownSuite)")
        #expect(text.contains("com.example.editor.pkg 2.1 into /Applications [Editor.pkg]"))
        #expect(text.contains("Installs:") && text.contains("com.example.editor 2.1 at /Applications/Editor.app"))
        // A component whose PackageInfo is broken is said to be, and the rest is still shown.
        #expect(text.contains("Viewer.pkg/PackageInfo: XML:"), "\(shownSuite)")
        // Not a package: a xar named otherwise shows no installer lines.
        try xar(product, tree.path("Suite.xar"))
        #expect(!(try Subprocess.bundlefs(["show", tree.path("Suite.xar")], catalogue: catalogue)).standardOutput.contains("Product:"))
    }

    /// The bundles in payloads: shown with where they install, catalogued, found by `query
    /// --in-archives` with `installsTo` and `component` in the JSON; a pbzx payload is an error
    /// line under its component and fails `show`, and the rest is still catalogued.
    @Test func payloadBundlesAreShownCataloguedAndFound() throws {
        let editor = TreeWriter(root: temporary.appending("editor"))
        editor.macApp("Editor.app", identifier: "com.example.editor", info: ["CFBundleVersion": .string("2.1")])
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.directory("Repository")
        try InstallerPackageBuilder.build(tree.path("Repository/Editor-2.1.pkg"), components: [
            .init(identifier: "com.example.editor.pkg", version: "2.1", installLocation: "/Applications", payload: editor.root,
                  bundles: [("com.example.editor", "./Editor.app")]),
        ], staging: temporary.appending("staging"))
        try InstallerPackageBuilder.build(tree.path("Repository/Suite.pkg"), components: [
            .init(identifier: "com.apple.pkg.Core", version: "1", installLocation: "/", payload: editor.root, compression: .pbzx, directory: "Core.pkg"),
            .init(identifier: "com.example.viewer.pkg", version: "1.0", installLocation: "/Applications/Utilities", payload: editor.root,
                  compression: .xz, directory: "Viewer.pkg"),
        ], product: ("Suite", "com.example.suite", "1.0"), staging: temporary.appending("staging"))

        let shown = try Subprocess.bundlefs(["show", tree.path("Repository/Editor-2.1.pkg")], catalogue: catalogue)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.standardOutput.contains("Installs to:  /Applications/Editor.app (component com.example.editor.pkg)"), "\(shown)")
        let suite = try Subprocess.bundlefs(["show", tree.path("Repository/Suite.pkg")], catalogue: catalogue)
        #expect(suite.status == 1)
        #expect(suite.standardOutput.contains("Payload error:") && suite.standardOutput.contains("pbzx"), "\(suite)")
        #expect(suite.standardOutput.contains("/Applications/Utilities/Editor.app (component com.example.viewer.pkg)"), "\(suite)")

        let indexed = try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue)
        try #require(indexed.status == 0, "\(indexed)")
        let found = try Subprocess.bundlefs(["query", "--in-archives", "--json", "com.example.editor"], catalogue: catalogue)
        let objects = try #require(try JSONValue.parse(found.standardOutput).arrayValue, "\(found)")
        let placed = objects.map { ($0["installsTo"]?.stringValue, $0["component"]?.stringValue, $0["member"]?.stringValue) }.sorted { ($0.0 ?? "") < ($1.0 ?? "") }
        #expect(placed.map(\.0) == ["/Applications/Editor.app", "/Applications/Utilities/Editor.app"], "\(found)")
        #expect(placed.map(\.1) == ["com.example.editor.pkg", "com.example.viewer.pkg"])
        #expect(placed.map(\.2) == ["Payload/Editor.app", "Viewer.pkg/Payload/Editor.app"])
        #expect(objects.contains { $0["archiveError"]?.stringValue?.contains("pbzx") == true })
        let none = try Subprocess.bundlefs(["query", "--no-archives", "com.example.editor"], catalogue: catalogue)
        #expect(none.status == 1 && none.standardOutput.isEmpty && none.standardError.contains("no bundle matches"), "\(none)")
    }

    /// A `PackageInfo` that cannot be read is an error on its component's bundles everywhere they
    /// are reported (`show` and its JSON, `query --json`, the catalogue, PostgreSQL), and no
    /// `installsTo` is guessed without it; the other component is placed as usual.
    @Test func anUnreadablePackageInfoIsAnErrorEverywhere() throws {
        let editor = TreeWriter(root: temporary.appending("editor"))
        editor.macApp("Editor.app", identifier: "com.example.editor")
        let viewer = TreeWriter(root: temporary.appending("viewer"))
        viewer.macApp("Viewer.app", identifier: "com.example.viewer")
        let tree = TreeWriter(root: temporary.appending("tree"))
        tree.directory("Repository")
        let package = tree.path("Repository/Suite.pkg")
        try InstallerPackageBuilder.build(package, components: [
            .init(identifier: "com.example.editor.pkg", version: "1.0", installLocation: "/Applications", payload: editor.root, directory: "Editor.pkg"),
            .init(identifier: "com.example.viewer.pkg", version: "1.0", installLocation: "/Applications", payload: viewer.root, directory: "Viewer.pkg",
                  packageInfoText: "<pkg-info identifier=\"com.example.viewer.pkg\" install-location=\"/Applications\""),
        ], product: ("Suite", "com.example.suite", "1.0"), staging: temporary.appending("staging"))
        let expected = "Viewer.pkg/PackageInfo could not be read (XML:"

        func check(_ objects: [JSONValue], _ source: String) {
            let viewer = objects.first { $0["identifier"]?.stringValue == "com.example.viewer" }
            #expect(viewer?["installsTo"] == .null && viewer?["component"] == .null, "\(source): \(String(describing: viewer))")
            let errors = viewer?["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(errors.count == 1 && errors.first?.hasPrefix(expected) == true, "\(source): \(errors)")
            let editor = objects.first { $0["identifier"]?.stringValue == "com.example.editor" }
            #expect(editor?["installsTo"]?.stringValue == "/Applications/Editor.app", "\(source)")
            #expect(editor?["errors"]?.arrayValue?.isEmpty == true, "\(source)")
        }

        let json = try Subprocess.bundlefs(["show", "--json", package], catalogue: catalogue)
        #expect(json.status == 1, "\(json)")
        check(try JSONValue.parse(json.standardOutput).arrayValue ?? [], "show --json")
        let shown = try Subprocess.bundlefs(["show", package], catalogue: catalogue)
        let viewerBlock = shown.standardOutput.components(separatedBy: "\n\n").first { $0.contains("Identifier:") && $0.contains("com.example.viewer") } ?? ""
        #expect(viewerBlock.contains("Error:") && viewerBlock.contains(expected), "\(shown)")
        #expect(!viewerBlock.contains("Installs to:"), "\(viewerBlock)")

        let indexed = try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue)
        try #require(indexed.status == 0, "\(indexed)")
        let found = try Subprocess.bundlefs(["query", "--in-archives", "--json"], catalogue: catalogue)
        check(try JSONValue.parse(found.standardOutput).arrayValue ?? [], "query --json")
        let problems = try Subprocess.run("/usr/bin/sqlite3", [catalogue, "SELECT p.severity || ' ' || p.message FROM problems p JOIN bundles b ON b.id = p.bundle_id"])
        #expect(problems.standardOutput.hasPrefix("error \(expected)"), "\(problems)")
        let archiveError = try Subprocess.run("/usr/bin/sqlite3", [catalogue, "SELECT error FROM archives"])
        #expect(archiveError.standardOutput.hasPrefix("Viewer.pkg/PackageInfo: XML:"), "\(archiveError)")

        let server = try PostgresServer()
        let published = try Subprocess.bundlefs(["publish", server.url, "--host", "alpha"], catalogue: catalogue)
        try #require(published.status == 0, "\(published)")
        #expect(try server.psql("SELECT error_count FROM bundlefs_bundles WHERE in_archive ORDER BY error_count") == "0\n1")
        let remote = try Subprocess.bundlefs(["query", "--in-archives", "--json", "--database", server.url], catalogue: catalogue)
        check(try JSONValue.parse(remote.standardOutput).arrayValue ?? [], "query --database")
    }
}
