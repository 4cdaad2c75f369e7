import BundleModel
import Fixtures
import Testing
import TestSupport

/// Rule 1's `system-type` reason: the data table, each of its rows, the folders that stay
/// folders, and claims that name a system type by identifier alone (rule 14).
@Suite struct SystemPackageTypeTests {
    let temporary = TemporaryDirectory("system-types")
    var tree: TreeWriter { TreeWriter(root: temporary.path) }
    static let table = SystemPackageTypes.standard
    static let conformance = TypeConformance(table.declarations)
    /// The rows that are packages and have extensions; a file type that shares an extension
    /// (`com.apple.iWork.Pages.sffpages`) is not one.
    static let packageRows = table.declarations.filter { !$0.extensions.isEmpty && conformance.conformsToPackage($0.identifier) }

    /// What the table makes packages, written out: a dropped row or a broken conformance fails here.
    static let expectedPackageExtensions: Set<String> = [
        // Xcode and Instruments
        "xcodeproj", "xcworkspace", "xcarchive", "dsym", "playground", "docset", "xcplugin", "trace", "xcdatamodeld",
        // applications that ship with macOS
        "sparsebundle", "photoslibrary", "photolibrary", "workflow", "action", "safariextension", "download",
        // iWork: documents, templates, -tef variants
        "pages", "pages-tef", "template", "numbers", "numbers-tef", "nmbtemplate", "key", "key-tef", "kth",
        // CoreTypes: installers, plug-ins and extensions, media, passes
        "pkg", "mpkg", "dist", "distz", "menu", "placeholder", "service", "webplugin", "ppp", "fs", "pluginkit", "wdgt",
        "dext", "systemextension", "slidesaver", "suggestionsassets", "lpdf", "pvt", "avchd", "pkpass",
        // GarageBand, iMovie, Core ML
        "band", "gbproj", "imovielibrary", "theater", "mlpackage",
    ]

    @Test func theTableReadsWhole() {
        #expect(Self.table.malformedLines == [])
        #expect(Self.table.packageExtensions.subtracting(Self.expectedPackageExtensions) == [], "not expected")
        #expect(Self.expectedPackageExtensions.subtracting(Self.table.packageExtensions) == [], "missing")
        // Rule 1's built-in extensions are the `extension` reason's, even where their types are
        // rows as parents (`.service` conforms through the application bundle type).
        #expect(Self.table.packageExtensions.isDisjoint(with: PackageRules.builtInPackageExtensions))
        #expect(Self.conformance.conformsToPackage("com.apple.service-application"))
        #expect(Self.conformance.conformsToPackage("com.apple.file-system-plug-in"))
    }

    @Test func rowsKeepTheirTagsAndSources() {
        let table = SystemPackageTypes(tsv: Array("""
            # a comment
            com.example.doc\tdoc,.DOC2\tapplication/x-doc,application/doc\tcom.apple.package\tExample.app\tExample document
            com.example.bare\t-\t-\t-\tExample.app\t-

            com.example.old\tdoc\t-\tcom.apple.package\tfive columns, no description
            com.example.unsourced\tdoc\t-\tcom.apple.package\t\t-
            \tdoc\t-\tcom.apple.package\tno identifier\t-
            com.example.undescribed\tdoc\t-\tcom.apple.package\tExample.app\t
            """.utf8))
        #expect(table.rows.map(\.declaration.identifier) == ["com.example.doc", "com.example.bare"])
        #expect(table.rows.first?.declaration.extensions == ["doc", "doc2"])
        #expect(table.rows.first?.mimeTypes == ["application/x-doc", "application/doc"])
        #expect(table.rows.map(\.source) == ["Example.app", "Example.app"])
        #expect(table.rows.map(\.description) == ["Example document", nil])
        #expect(table.rows.last?.declaration.conformsTo == [])
        #expect(table.malformedLines == [5, 6, 7, 8])
        #expect(table.packageExtensions == ["doc", "doc2"])
    }

    @Test(arguments: packageRows)
    func eachRowIsAPackage(row: TypeDeclaration) throws {
        for ext in row.extensions {
            // Extensions compare case-insensitively: `X.dSYM` as Xcode spells it.
            let name = "Item." + (ext == "dsym" ? "dSYM" : ext)
            tree.directory(name + "/inner")
            let record = try #require(try inspect(name, in: tree), "\(row.identifier)")
            // A parent whose extension is built in (`app`, `plugin`) keeps the one reason `extension`.
            let builtIn = PackageRules.builtInPackageExtensions.contains(ext)
            #expect(record.packageReasons == (builtIn ? .extension : .systemType), "\(row.identifier)")
            #expect(record.packageReasons.names == [builtIn ? "extension" : "system-type"])
        }
    }

    /// Every type that a Mac (macOS 13.3.1, the dump Docs/types.md names) declares conforming to
    /// com.apple.package, directly or through parents, with its extensions as declared.
    static let dumpPackageTypes: [(String, [String])] = [
        ("com.apple.xcode.dsym", ["dsym"]), ("com.apple.private.live-photo-bundle", ["pvt"]),
        ("public.avchd-collection", ["avchd"]), ("com.apple.applescript.script-bundle", ["scptd"]),
        ("com.apple.generic-bundle", ["bundle"]), ("com.apple.systempreference.prefpane", ["prefpane"]),
        ("com.apple.systempreference.screen-saver", ["saver"]),
        ("com.apple.systempreference.screen-slide-saver", ["slidesaver"]), ("com.apple.menu-extra", ["menu"]),
        ("com.apple.application-bundle", ["app"]), ("com.apple.installer-package", ["pkg"]),
        ("com.apple.installer-distribution-package", ["dist", "distz"]),
        ("com.apple.installer-meta-package", ["mpkg"]),
        ("com.apple.intelligentsuggestions.assets", ["suggestionsassets"]), ("com.apple.rtfd", ["rtfd"]),
        ("com.apple.application-placeholder", ["placeholder"]), ("com.apple.service-application", ["service"]),
        ("com.apple.plugin", ["plugin"]), ("com.apple.xpc-service", ["xpc"]),
        ("com.apple.kernel-extension", ["kext"]), ("com.apple.application-and-system-extension", ["appex"]),
        ("com.apple.pluginkit", ["pluginkit"]), ("com.apple.webkit-plugin", ["webplugin"]),
        ("com.apple.metadata-importer", ["mdimporter"]), ("com.apple.quicklook-generator", ["qlgenerator"]),
        ("com.apple.dashboard-widget", ["wdgt"]), ("com.apple.driver-extension", ["dext"]),
        ("com.apple.system-extension", ["systemextension"]), ("com.apple.ppp-plug-in", ["ppp"]),
        ("com.apple.file-system-plug-in", ["fs"]), ("com.apple.localized-pdf-bundle", ["lpdf"]),
        ("com.apple.pkpass", ["pkpass"]), ("com.apple.keynote.key", []), ("com.apple.keynote.kth", []),
        ("com.apple.iWork.Keynote.key", ["key"]), ("com.apple.iWork.Keynote.key-tef", ["key-tef"]),
        ("com.apple.iWork.Keynote.kth", ["kth"]), ("com.apple.iWork.Pages.pages", ["pages"]),
        ("com.apple.iWork.Pages.pages-tef", ["pages-tef"]), ("com.apple.iWork.Pages.template", ["template"]),
        ("com.apple.iWork.Numbers.numbers", ["numbers"]), ("com.apple.iWork.Numbers.numbers-tef", ["numbers-tef"]),
        ("com.apple.iWork.Numbers.template", ["nmbtemplate"]), ("com.apple.garageband.project", ["band", "gbproj"]),
        ("com.apple.iMovieLibrary", ["imovielibrary"]), ("com.apple.iMovieTheater", ["theater"]),
        ("com.apple.coreml.mlpackage", ["mlpackage"]),
    ]

    /// The table is complete against the dump: each of its package types is a row that conforms
    /// too, with the same extensions, unless rule 1's built-in set covers every extension it has.
    @Test(arguments: dumpPackageTypes)
    func everyPackageTypeOfTheMacIsOne(identifier: String, extensions: [String]) throws {
        let builtIn = !extensions.isEmpty && extensions.allSatisfy(PackageRules.builtInPackageExtensions.contains)
        if !builtIn {
            #expect(Self.conformance.conformsToPackage(identifier))
            #expect(Self.conformance.declarations[identifier.lowercased()]?.map(\.extensions) == [extensions])
        }
        for ext in extensions {
            tree.directory("Item.\(ext)/inner")
            #expect(try inspect("Item.\(ext)", in: tree)?.packageReasons == (builtIn ? .extension : .systemType), "\(identifier)")
        }
    }

    @Test(arguments: ["xcassets", "lproj", "framework", "localized", "d"])
    func foldersStayFolders(ext: String) throws {
        tree.directory("Item.\(ext)/inner")
        #expect(try inspect("Item.\(ext)", in: tree)?.isPackage != true)
    }

    @Test func aBundleOfASystemTypeIsBoth() throws {
        tree.plist("App.app.dSYM/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.apple.xcode.dsym.com.example.app"), "CFBundlePackageType": .string("dSYM")]))
        let record = try #require(try inspect("App.app.dSYM", in: tree))
        #expect(record.isBundle && record.packageReasons == .systemType)
        #expect(record.kind == "dSYM")
    }

    @Test func aClaimByIdentifierAloneUsesTheSystemTree() {
        let editor = ClaimResolver.Application(
            path: "/Applications/Writer.app",
            documentTypes: [DocumentType(extensions: [], contentTypes: ["com.apple.iWork.Pages.pages", "com.example.menu-doc"], isPackage: false)],
            // Its own type conforms to the package type only through a system type.
            typeDeclarations: [TypeDeclaration(identifier: "com.example.menu-doc", conformsTo: ["com.apple.menu-extra"], extensions: ["mdoc"], exported: true)])
        let claims = ClaimResolver.claims(of: [editor])
        #expect(claims.map(\.ext) == ["mdoc", "pages"])
        #expect(claims.map(\.contentType) == ["com.example.menu-doc", "com.apple.iWork.Pages.pages"])
        // The same claims without the system tree find nothing.
        #expect(ClaimResolver.claims(of: [editor], systemTypes: SystemPackageTypes(tsv: [])).isEmpty)
    }

    /// A Mac declares each iWork format twice under one extension: a package (a directory) and a
    /// single file (`sff`, public.data). The package is the directory's type; the file type is
    /// not a package, so an application that names only it claims no package.
    @Test(arguments: [
        ("pages", "com.apple.iWork.Pages.pages", "com.apple.iWork.Pages.sffpages"),
        ("template", "com.apple.iWork.Pages.template", "com.apple.iWork.Pages.sfftemplate"),
        ("numbers", "com.apple.iWork.Numbers.numbers", "com.apple.iWork.Numbers.sffnumbers"),
        ("nmbtemplate", "com.apple.iWork.Numbers.template", "com.apple.iWork.Numbers.sfftemplate"),
        ("key", "com.apple.iWork.Keynote.key", "com.apple.iWork.Keynote.sffkey"),
        ("kth", "com.apple.iWork.Keynote.kth", "com.apple.iWork.Keynote.sffkth"),
    ])
    func iWorkPackagesAndSingleFiles(ext: String, package: String, singleFile: String) throws {
        let rows = Self.table.declarations.filter { $0.extensions.contains(ext) }
        #expect(Set(rows.map(\.identifier)) == [package, singleFile])
        #expect(Self.conformance.conformsToPackage(package))
        #expect(!Self.conformance.conformsToPackage(singleFile))
        #expect(Self.table.rows.first { $0.declaration.identifier == singleFile }?.declaration.conformsTo.first == "public.data")

        tree.directory("Report.\(ext)/Index")
        #expect(try inspect("Report.\(ext)", in: tree)?.packageReasons == .systemType)
        func claims(_ type: String) -> [String] {
            let editor = ClaimResolver.Application(
                path: "/Applications/Editor.app",
                documentTypes: [DocumentType(extensions: [], contentTypes: [type], isPackage: false)], typeDeclarations: [])
            return ClaimResolver.claims(of: [editor]).map(\.ext)
        }
        #expect(claims(package) == [ext])
        #expect(claims(singleFile) == [])
    }

    @Test func conformanceCyclesAndDiamondsEnd() {
        var declarations: [TypeDeclaration] = []
        for level in 0..<2000 {
            // Each level conforms to both types of the level below: 2^2000 paths, one walk.
            declarations.append(TypeDeclaration(identifier: "a\(level)", conformsTo: ["a\(level + 1)", "b\(level + 1)"], extensions: [], exported: true))
            declarations.append(TypeDeclaration(identifier: "b\(level)", conformsTo: ["a\(level + 1)", "b\(level + 1)"], extensions: [], exported: true))
        }
        declarations.append(TypeDeclaration(identifier: "loop", conformsTo: ["loop"], extensions: [], exported: true))
        let tree = TypeConformance(declarations)
        #expect(!tree.conformsToPackage("a0"))
        #expect(!tree.conformsToPackage("loop"))
        let connected = TypeConformance(declarations + [TypeDeclaration(identifier: "a2000", conformsTo: ["COM.apple.package"], extensions: [], exported: true)])
        #expect(connected.conformsToPackage("A0"))
    }
}
