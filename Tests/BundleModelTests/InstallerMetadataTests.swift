import BundleModel
import Codecs
import Testing

/// Rule 33's metadata, from `PackageInfo` and `Distribution` as Apple's `pkgbuild` and
/// `productbuild` write them.
@Suite struct InstallerMetadataTests {
    static let packageInfo = """
        <?xml version="1.0" encoding="utf-8"?>
        <pkg-info overwrite-permissions="true" relocatable="false" identifier="com.example.editor.pkg" postinstall-action="none" version="2.1" format-version="2" generator-version="InstallCmds-835" install-location="/Applications" auth="root">
            <payload numberOfFiles="120" installKBytes="20480"/>
            <bundle path="./Editor.app" id="com.example.editor" CFBundleShortVersionString="2.1" CFBundleVersion="210"/>
            <bundle-version>
                <bundle id="com.example.editor" CFBundleShortVersionString="2.1" CFBundleVersion="210" path="./Editor.app"/>
                <bundle id="com.example.helper" CFBundleVersion="7" path="./Editor.app/Contents/Library/Helper.app"/>
            </bundle-version>
        </pkg-info>
        """
    static let distribution = """
        <?xml version="1.0" encoding="utf-8" standalone="no"?>
        <installer-gui-script minSpecVersion="2">
            <title>Example Editor</title>
            <pkg-ref id="com.example.editor.pkg"/>
            <options customize="never" require-scripts="false" hostArchitectures="x86_64,arm64"/>
            <choices-outline><line choice="default"><line choice="com.example.editor.pkg"/></line></choices-outline>
            <choice id="default"/>
            <pkg-ref id="com.example.editor.pkg" version="2.1" onConclusion="none" installKBytes="20480">#Editor.pkg</pkg-ref>
            <product id="com.example.editor" version="2.1.0"/>
        </installer-gui-script>
        """

    @Test func aComponentsIdentifierVersionLocationAndBundles() throws {
        let component = try InstallerComponent.read(packageInfo: Array(Self.packageInfo.utf8))
        #expect(component.identifier == "com.example.editor.pkg")
        #expect(component.version == "2.1")
        #expect(component.installLocation == "/Applications")
        #expect(component.bundles.map(\.identifier) == ["com.example.editor", "com.example.helper"])
        #expect(component.bundles.map(\.version) == ["2.1", "7"])
        #expect(component.installPath(of: component.bundles[0].path) == "/Applications/Editor.app")
        #expect(component.installPath(of: "./Editor.app/Contents/Library/Helper.app") == "/Applications/Editor.app/Contents/Library/Helper.app")
        #expect(InstallerComponent(identifier: nil, version: nil).installPath(of: "./usr/local/bin/tool") == "/usr/local/bin/tool")
        #expect(InstallerComponent(identifier: nil, version: nil, installLocation: "/opt/").installPath(of: ".") == "/opt")
    }

    @Test func aProductsTitleAndVersion() throws {
        let product = try InstallerProduct.read(distribution: Array(Self.distribution.utf8))
        #expect(product == InstallerProduct(title: "Example Editor", identifier: "com.example.editor", version: "2.1.0"))
    }

    @Test func otherDocumentsAreErrors() throws {
        #expect(throws: XMLError.self) { try InstallerComponent.read(packageInfo: Array(Self.distribution.utf8)) }
        #expect(throws: XMLError.self) { try InstallerProduct.read(distribution: Array(Self.packageInfo.utf8)) }
        #expect(throws: XMLError.self) { try InstallerComponent.read(packageInfo: Array("<pkg-info".utf8)) }
        // A component without its attributes is read with what there is.
        #expect(try InstallerComponent.read(packageInfo: Array("<pkg-info/>".utf8)) == InstallerComponent(identifier: nil, version: nil))
    }
}
