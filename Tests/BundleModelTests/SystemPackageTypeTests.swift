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

    @Test func theTableReadsWhole() {
        #expect(Self.table.malformedLines == [])
        #expect(Self.table.declarations.count >= 20)
        for ext in ["xcodeproj", "xcworkspace", "xcarchive", "dsym", "sparsebundle", "photoslibrary", "pages", "numbers", "key", "workflow"] {
            #expect(Self.table.packageExtensions.contains(ext), "\(ext)")
        }
        // Rule 1's built-in extensions are the `extension` reason's, not repeated here.
        #expect(Self.table.packageExtensions.isDisjoint(with: PackageRules.builtInPackageExtensions))
    }

    @Test func rowsKeepTheirTagsAndSources() {
        let table = SystemPackageTypes(tsv: Array("""
            # a comment
            com.example.doc\tdoc,.DOC2\tapplication/x-doc,application/doc\tcom.apple.package\tExample.app
            com.example.bare\t-\t-\t-\tExample.app

            com.example.old\tdoc\tcom.apple.package\tfour columns
            com.example.unsourced\tdoc\t-\tcom.apple.package\t
            \tdoc\t-\tcom.apple.package\tno identifier
            """.utf8))
        #expect(table.rows.map(\.declaration.identifier) == ["com.example.doc", "com.example.bare"])
        #expect(table.rows.first?.declaration.extensions == ["doc", "doc2"])
        #expect(table.rows.first?.mimeTypes == ["application/x-doc", "application/doc"])
        #expect(table.rows.map(\.source) == ["Example.app", "Example.app"])
        #expect(table.rows.last?.declaration.conformsTo == [])
        #expect(table.malformedLines == [5, 6, 7])
        #expect(table.packageExtensions == ["doc", "doc2"])
    }

    @Test(arguments: packageRows)
    func eachRowIsAPackage(row: TypeDeclaration) throws {
        for ext in row.extensions {
            // Extensions compare case-insensitively: `X.dSYM` as Xcode spells it.
            let name = "Item." + (ext == "dsym" ? "dSYM" : ext)
            tree.directory(name + "/inner")
            let record = try #require(try inspect(name, in: tree), "\(row.identifier)")
            #expect(record.packageReasons == .systemType, "\(row.identifier)")
            #expect(record.packageReasons.names == ["system-type"])
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
