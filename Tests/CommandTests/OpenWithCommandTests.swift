import BundleModel
import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// `open-with` and `types` through the binary (SPEC.md, "Launch Services"): answers from the
/// catalogue's claims and declarations, kept by `index`, and changed by a re-index.
@Suite struct OpenWithCommandTests {
    let temporary = TemporaryDirectory("open-with")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    func bundlefs(_ arguments: String...) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue)
    }

    static func documentType(_ members: [String: PlistValue]) -> PlistValue { .dictionary(members) }

    /// A sketch editor that exports its type, a viewer that imports it, an image viewer, a
    /// browser claiming everything and a URL scheme, an app nobody should choose (rank None).
    func writeTree() {
        let sketchType: PlistValue = .array([.dictionary([
            "UTTypeIdentifier": .string("org.example.sketch"), "UTTypeConformsTo": .array([.string("public.data"), .string("public.content")]),
            "UTTypeDescription": .string("Sketch drawing"),
            "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("sketch")]),
                                                   "public.mime-type": .string("application/x-sketch")]),
        ])])
        tree.macApp("Apps/Sketch.app", identifier: "org.example.sketch-editor", info: [
            "CFBundleVersion": .string("2.0"), "UTExportedTypeDeclarations": sketchType,
            "CFBundleDocumentTypes": .array([Self.documentType([
                "LSItemContentTypes": .array([.string("org.example.sketch")]), "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Owner"),
            ])]),
        ])
        tree.macApp("Apps/Viewer.app", identifier: "org.example.viewer", info: [
            "CFBundleVersion": .string("1.0"), "UTImportedTypeDeclarations": sketchType,
            "CFBundleDocumentTypes": .array([
                Self.documentType(["LSItemContentTypes": .array([.string("org.example.sketch"), .string("public.image")]), "CFBundleTypeRole": .string("Viewer")]),
            ]),
        ])
        tree.macApp("Apps/Browser.app", identifier: "org.example.browser", info: [
            "CFBundleDocumentTypes": .array([Self.documentType(["CFBundleTypeExtensions": .array([.string("*")]), "CFBundleTypeRole": .string("Viewer")])]),
            "CFBundleURLTypes": .array([Self.documentType(["CFBundleURLSchemes": .array([.string("HTTPS"), .string("exampleapp")])])]),
        ])
        tree.macApp("Apps/Never.app", identifier: "org.example.never", info: [
            "CFBundleDocumentTypes": .array([Self.documentType(["CFBundleTypeExtensions": .array([.string("jpg")]), "LSHandlerRank": .string("None")])]),
        ])
        tree.text("Docs/drawing.sketch", "lines")
        tree.text("Docs/photo.JPG", "pixels")
    }

    func identifiers(_ arguments: String...) throws -> [String] {
        let result = try Subprocess.bundlefs(arguments + ["--json"], catalogue: catalogue)
        guard result.status == 0 else { return [] }
        return try JSONValue.parse(result.standardOutput).arrayValue?.compactMap { $0["identifier"]?.stringValue } ?? []
    }

    @Test func rankedHandlersOfPathsExtensionsTypesAndSchemes() throws {
        writeTree()
        #expect(try bundlefs("index", tree.root).status == 0)
        #expect(try identifiers("open-with", tree.path("Docs/drawing.sketch")) == ["org.example.sketch-editor", "org.example.viewer", "org.example.browser"])
        let json = try JSONValue.parse(try bundlefs("open-with", tree.path("Docs/drawing.sketch"), "--json").standardOutput)
        let first = try #require(json.arrayValue?.first)
        #expect(first["default"] == .bool(true) && first["rank"] == .string("Owner") && first["role"] == .string("Editor"))
        #expect(first["claim"] == .string("type org.example.sketch") && first["version"] == .string("2.0"))
        #expect(json.arrayValue?.last?["claim"] == .string("everything") && json.arrayValue?.last?["default"] == nil)
        // An image: the viewer through public.image's conformance, the browser for everything; None not chosen.
        #expect(try identifiers("open-with", tree.path("Docs/photo.JPG")) == ["org.example.viewer", "org.example.browser"])
        // With --all, rank None too: a specific claim, so before the claim of everything.
        #expect(try identifiers("open-with", "--extension", ".jpg", "--all") == ["org.example.viewer", "org.example.never", "org.example.browser"])
        #expect(try identifiers("open-with", "--type", "ORG.EXAMPLE.SKETCH", "--role", "editor") == ["org.example.sketch-editor"])
        #expect(try identifiers("open-with", "--scheme", "https") == ["org.example.browser"])
        // Nothing claims a folder here, nor an unknown scheme: exit 1, with a message.
        let folder = try bundlefs("open-with", tree.path("Docs"))
        #expect(folder.status == 1 && folder.standardError.contains("no application claims"))
        #expect(try bundlefs("open-with", "--scheme", "zoommtg").status == 1)
        let table = try bundlefs("open-with", "--extension", "sketch").standardOutput
        #expect(table.hasPrefix("RANK") && table.contains("Owner") && table.contains(tree.path("Apps/Sketch.app")))
        #expect(try bundlefs("open-with", "--extension", "jpg", "--type", "public.jpeg").status != 0)
    }

    @Test func typesShowsTheSystemsAndTheApplicationsDeclarations() throws {
        writeTree()
        #expect(try bundlefs("index", tree.root).status == 0)
        let sketch = try #require(try JSONValue.parse(try bundlefs("types", "org.example.sketch", "--json").standardOutput).arrayValue?.first)
        #expect(sketch["description"] == .string("Sketch drawing") && sketch["extensions"] == .strings(["sketch"]))
        #expect(sketch["mimeTypes"] == .strings(["application/x-sketch"]))
        #expect(sketch["conformsTo"]?.arrayValue?.contains(.string("public.item")) == true)
        #expect(sketch["declaredBy"]?.arrayValue?.map { $0["kind"] } == [.string("exported"), .string("imported")])
        let jpeg = try JSONValue.parse(try bundlefs("types", "--extension", "jpg", "--json").standardOutput)
        #expect(jpeg.arrayValue?.first?["identifier"] == .string("public.jpeg"))
        #expect(jpeg.arrayValue?.first?["declaredBy"]?.arrayValue?.first?["kind"] == .string("system"))
        let images = try JSONValue.parse(try bundlefs("types", "--conforms-to", "public.image", "--json").standardOutput)
        #expect(images.arrayValue?.contains { $0["identifier"] == .string("public.png") } == true)
        #expect(try bundlefs("types", "org.example.unknown").status == 1)
    }

    /// The system's types are in the binary: `types` answers them with no catalogue (a fresh
    /// machine), and adds the applications' declarations once there is one.
    @Test func typesAnswersTheSystemsTableWithoutACatalogue() throws {
        #expect(!FileManager.default.fileExists(atPath: catalogue))
        let png = try bundlefs("types", "--extension", "png", "--json")
        #expect(png.status == 0, "\(png.standardError)")
        #expect(try JSONValue.parse(png.standardOutput).arrayValue?.map { $0["identifier"] } == [.string("public.png")])
        #expect(try bundlefs("types", "org.example.sketch").status == 1)
        // Nothing was created by asking.
        #expect(!FileManager.default.fileExists(atPath: catalogue))
        writeTree()
        #expect(try bundlefs("index", tree.root).status == 0)
        #expect(try bundlefs("types", "org.example.sketch").status == 0)
        // A file that is not a catalogue is still refused, and left alone.
        let other = temporary.appending("notes.txt")
        #expect(FileManager.default.createFile(atPath: other, contents: Data("notes".utf8)))
        let refused = try Subprocess.bundlefs(["types", "--extension", "png"], catalogue: other)
        #expect(refused.status != 0 && refused.standardError.contains("not a bundlefs catalogue"), "\(refused)")
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "notes")
    }

    @Test func answersFollowAReindex() throws {
        writeTree()
        #expect(try bundlefs("index", tree.root).status == 0)
        #expect(try identifiers("open-with", "--extension", "sketch").first == "org.example.sketch-editor")
        tree.remove("Apps/Sketch.app")
        #expect(try bundlefs("index", tree.root).status == 0)
        // Its export gone, the viewer's import declares the type and opens it.
        #expect(try identifiers("open-with", "--extension", "sketch") == ["org.example.viewer", "org.example.browser"])
    }

    /// Rule 29: role None declares an icon (PikoPixel's `pikogrid` in Debian): the catalogue lists
    /// it only with --all, and never as the default application.
    @Test func aClaimOfRoleNoneIsNoHandler() throws {
        tree.macApp("Apps/Icon.app", identifier: "org.example.icon", info: [
            "CFBundleDocumentTypes": .array([Self.documentType([
                "CFBundleTypeExtensions": .array([.string("pikogrid")]), "CFBundleTypeRole": .string("None"), "LSHandlerRank": .string("Owner"),
            ])]),
        ])
        #expect(try bundlefs("index", tree.root).status == 0)
        let none = try bundlefs("open-with", "--extension", "pikogrid")
        #expect(none.status == 1 && none.standardError.contains("no application claims"), "\(none.standardOutput)")
        tree.macApp("Apps/Editor.app", identifier: "org.example.editor", info: [
            "CFBundleDocumentTypes": .array([Self.documentType([
                "CFBundleTypeExtensions": .array([.string("pikogrid")]), "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Alternate"),
            ])]),
        ])
        #expect(try bundlefs("index", tree.root).status == 0)
        #expect(try identifiers("open-with", "--extension", "pikogrid") == ["org.example.editor"])
        let all = try JSONValue.parse(try bundlefs("open-with", "--extension", "pikogrid", "--all", "--json").standardOutput).arrayValue ?? []
        #expect(all.map { $0["identifier"] } == [.string("org.example.icon"), .string("org.example.editor")])
        #expect(all.map { $0["default"] } == [nil, .bool(true)])
    }

    /// The catalogue keeps a claimed type lower-cased; an answer names it as its declaration
    /// spells it, as `open-with --database` does.
    @Test func aClaimedTypeIsNamedAsItIsDeclared() throws {
        tree.macApp("Apps/Writer.app", identifier: "org.example.writer", info: [
            "CFBundleDocumentTypes": .array([Self.documentType(["LSItemContentTypes": .array([.string("COM.APPLE.IWORK.PAGES.SFFPAGES")])])]),
        ])
        #expect(try bundlefs("index", tree.root).status == 0)
        let json = try JSONValue.parse(try bundlefs("open-with", "--extension", "pages", "--json").standardOutput)
        #expect(json.arrayValue?.first?["claim"] == .string("type com.apple.iWork.Pages.sffpages"), "\(json)")
    }
}
