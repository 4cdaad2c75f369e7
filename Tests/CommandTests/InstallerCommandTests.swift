import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Flat installer packages through `show` (rule 33): a component package and a product archive
/// of two components, built as xar archives by `bsdtar --format xar` from files our code wrote,
/// show their product, their components and what each says it installs, and where. (Payloads are
/// not opened yet: issue 29.)
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
        #expect(shownTool.standardOutput.contains("Component: com.example.tool.pkg 3.2 into /usr/local"), "\(shownTool)")
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
}
