import BundleModel
import Catalogue
import Foundation
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Launch Services on a real macOS wheel from PyPI (qt5-applications, `PythonWheels`): Qt's
/// Designer, Linguist and qml applications claim documents with CFBundleDocumentTypes, and qml.app
/// exports the type it claims. Unpacked as pip installs it, they are installed applications and
/// claim (rules 28 to 30); inside the wheel, they are catalogued but claim nothing (rule 26).
@Suite struct LaunchServicesWheelTests {
    let temporary = TemporaryDirectory("launch-wheel")
    static let wheel = PythonWheels.qt5Applications
    static let bin = "qt5_applications/Qt/bin"
    static let applications = [
        "Assistant.app": "org.qt-project.assistant", "Designer.app": "org.qt-project.Designer",
        "Linguist.app": "org.qt-project.Linguist", "pixeltool.app": "org.qt-project.pixeltool",
        "qdbusviewer.app": "org.qt-project.dbusviewer", "qml.app": "org.qt-project.qml",
    ]
    /// Linguist.app's four CFBundleDocumentTypes entries, one extension each.
    static let linguistExtensions = ["qph", "ts", "po", "xlf"]

    func catalogue(indexing root: String) throws -> Catalogue {
        let catalogue = try Catalogue(path: FilePath(temporary.appending("catalogue.sqlite")), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(root))
        return catalogue
    }

    /// Bundle name to identifier; a name seen twice would be a bundle catalogued twice.
    static func identifiers(_ records: [BundleRecord]) -> [String: String] {
        Dictionary(records.map { ($0.key.lastComponent.string, $0.identifier ?? "") }, uniquingKeysWith: { _, _ in "twice" })
    }

    static func names(_ handlers: [HandlerRanking.Handler]) -> [String] { handlers.map { $0.application.path.lastComponent.string } }

    @Test(.enabled(if: PythonWheels.qt5ApplicationsWheel != nil, Comment(rawValue: PythonWheels.skipMessage(wheel))))
    func insideTheWheelItsApplicationsAreCataloguedButClaimNothing() throws {
        // The wheel as pip downloads it (a `.whl` is a zip; Docs/archives.md).
        let tree = temporary.appending("tree")
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        let archive = Paths.join(tree, FilePath(PythonWheels.qt5ApplicationsWheel!).lastComponent.string)
        do { try FileManager.default.linkItem(atPath: PythonWheels.qt5ApplicationsWheel!, toPath: archive) } catch {
            try FileManager.default.copyItem(atPath: PythonWheels.qt5ApplicationsWheel!, toPath: archive)
        }
        let catalogue = try catalogue(indexing: tree)

        let found = try catalogue.bundles(matching: BundleQuery(kind: "application")).map(\.record)
        #expect(Self.identifiers(found) == Self.applications)
        for record in found {
            #expect(record.archive == FilePath(archive) && record.member?.string.hasPrefix(Self.bin + "/") == true, "\(record.key)")
        }
        // What they would claim is read (shown) all the same...
        let designer = try #require(found.first { $0.identifier == "org.qt-project.Designer" })
        #expect(designer.documentTypes.map(\.extensions) == [["ui"]])
        let qml = try #require(found.first { $0.identifier == "org.qt-project.qml" })
        #expect(qml.documentTypes.map(\.contentTypes) == [["org.qt-project.qml"]])
        #expect(qml.typeDeclarations.map(\.identifier) == ["org.qt-project.qml"])

        // ...but nothing is claimed or declared: they are not installed.
        for ext in ["ui", "qml"] + Self.linguistExtensions {
            #expect(try catalogue.handlers(of: .file(extension: ext), all: true).isEmpty, "\(ext)")
        }
        #expect(try catalogue.handlers(of: .type("org.qt-project.qml"), all: true).isEmpty)
        #expect(try catalogue.typeDatabase().declaration("org.qt-project.qml") == nil)
        #expect(try catalogue.typeDatabase().types(forExtension: "qml").isEmpty)
    }

    @Test(.enabled(if: PythonWheels.qt5ApplicationsInstalled != nil, Comment(rawValue: PythonWheels.skipMessage(wheel))))
    func installedByPipItsApplicationsClaimWhatTheirInfoPlistsSay() throws {
        let sitePackages = PythonWheels.qt5ApplicationsInstalled!
        let catalogue = try catalogue(indexing: sitePackages)
        func path(_ app: String) -> FilePath { FilePath(Paths.join(Paths.join(sitePackages, Self.bin), app)) }

        let installed = try catalogue.bundles(matching: BundleQuery(kind: "application", under: FilePath(sitePackages))).map(\.record)
        #expect(Self.identifiers(installed) == Self.applications)

        // Designer.app: CFBundleTypeExtensions ui, role Editor, no LSHandlerRank (Default).
        let ui = try catalogue.handlers(of: .file(extension: "ui"))
        #expect(Self.names(ui) == ["Designer.app"])
        #expect(ui.first?.application.path == path("Designer.app"))
        #expect(ui.first?.application.identifier == "org.qt-project.Designer")
        #expect(ui.first?.claim == LaunchClaim(target: .fileExtension("ui"), role: .editor, rank: .default))
        // An editor can view; asked for shells, it does not count.
        #expect(Self.names(try catalogue.handlers(of: .file(extension: "UI"), role: .viewer)) == ["Designer.app"])
        #expect(try catalogue.handlers(of: .file(extension: "ui"), role: .shell).isEmpty)

        // Linguist.app: one entry per extension, each Editor with LSHandlerRank Default.
        for ext in Self.linguistExtensions {
            let handlers = try catalogue.handlers(of: .file(extension: ext.uppercased()))
            #expect(Self.names(handlers) == ["Linguist.app"], "\(ext)")
            #expect(handlers.first?.application.identifier == "org.qt-project.Linguist")
            #expect(handlers.first?.claim == LaunchClaim(target: .fileExtension(ext), role: .editor, rank: .default), "\(ext)")
        }

        // qml.app claims by content type (LSItemContentTypes, Viewer) the type it exports for `qml`:
        // a `.qml` file reaches it only through that export.
        let qml = try catalogue.handlers(of: .file(extension: "qml"))
        #expect(Self.names(qml) == ["qml.app"])
        #expect(qml.first?.application.path == path("qml.app"))
        #expect(qml.first?.claim == LaunchClaim(target: .type("org.qt-project.qml"), role: .viewer, rank: .default))
        #expect(qml.first?.steps == 0)
        #expect(Self.names(try catalogue.handlers(of: .type("ORG.QT-PROJECT.QML"))) == ["qml.app"])
        #expect(try catalogue.handlers(of: .file(extension: "qml"), role: .editor).isEmpty)
        // Its claim does not reach down: plain text is not a QML document.
        #expect(try catalogue.handlers(of: .file(extension: "txt"), all: true).isEmpty)

        // `types`: the export, with the plist's description, extension and conformance.
        let types = try catalogue.typeDatabase()
        let declaration = try #require(types.declaration("org.qt-project.qml"))
        #expect(declaration.origin == .exported && declaration.declaredBy == path("qml.app"))
        #expect(declaration.description == "Qt Markup Language")
        #expect(declaration.extensions == ["qml"] && declaration.conformsTo == ["public.plain-text"])
        #expect(types.types(forExtension: "QML") == ["org.qt-project.qml"])
        #expect(types.conforms("org.qt-project.qml", to: "public.text"))

        // The wheel's applications declare no URL schemes.
        for scheme in ["qml", "qt", "org.qt-project.qml"] { #expect(try catalogue.handlers(of: .scheme(scheme), all: true).isEmpty) }
    }
}
