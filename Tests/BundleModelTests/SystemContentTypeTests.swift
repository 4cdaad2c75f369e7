import BundleModel
import Testing

/// Rule 28's part of the system types table: the common content types, in the same table as
/// rule 1's package types (SystemPackageTypeTests pins that those did not change).
@Suite struct SystemContentTypeTests {
    static let table = SystemPackageTypes.standard
    /// Rows by lower-cased identifier.
    static let rows: [String: SystemPackageTypes.Row] = Dictionary(
        table.rows.map { ($0.declaration.identifier.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

    /// Every type the given one conforms to, directly or through parents, lower-cased.
    static func ancestors(of identifier: String) -> Set<String> {
        var found: Set<String> = []
        var pending = [identifier.lowercased()]
        while let type = pending.popLast() {
            for parent in rows[type]?.declaration.conformsTo ?? [] where found.insert(parent.lowercased()).inserted {
                pending.append(parent.lowercased())
            }
        }
        return found
    }

    @Test func identifiersAreUnique() {
        #expect(Self.rows.count == Self.table.rows.count)
    }

    /// The conformance is closed: each type a row names as a parent is a row itself, so every
    /// chain can be followed to its root (public.item, public.content, or a mixin).
    @Test func everyParentIsARow() {
        let unknown = Self.table.rows.flatMap { row in
            row.declaration.conformsTo.filter { Self.rows[$0.lowercased()] == nil }.map { "\(row.declaration.identifier) → \($0)" }
        }
        #expect(unknown == [])
        for root in ["public.item", "public.content"] {
            #expect(Self.rows[root]?.declaration.conformsTo == [], "\(root)")
        }
    }

    @Test func jpegIsAnImageAndData() throws {
        let jpeg = try #require(Self.rows["public.jpeg"])
        #expect(Set(["jpg", "jpeg"]).isSubset(of: jpeg.declaration.extensions))
        #expect(jpeg.mimeTypes.contains("image/jpeg"))
        #expect(jpeg.description == "JPEG image")
        #expect(jpeg.source.hasPrefix("dump, system"))
        #expect(Self.ancestors(of: "public.jpeg").isSuperset(of: ["public.image", "public.data", "public.item", "public.content"]))
    }

    @Test func pdfIsADocument() throws {
        let pdf = try #require(Self.rows["com.adobe.pdf"])
        #expect(pdf.declaration.extensions == ["pdf"])
        #expect(pdf.mimeTypes == ["application/pdf"])
        #expect(Self.ancestors(of: "com.adobe.pdf").isSuperset(of: ["public.data", "public.item", "public.composite-content", "public.content"]))
    }

    @Test func aFolderIsADirectoryNotAPackage() {
        #expect(Self.rows["public.folder"]?.declaration.conformsTo == ["public.directory"])
        #expect(Self.ancestors(of: "public.folder") == ["public.directory", "public.item"])
        #expect(!TypeConformance(Self.table.declarations).conformsToPackage("public.folder"))
    }

    /// What a user asks "what opens this?" of: each extension has its type, and that type is
    /// data (a file), through its chain.
    @Test(arguments: [
        ("jpg", "public.jpeg"), ("png", "public.png"), ("gif", "com.compuserve.gif"), ("pdf", "com.adobe.pdf"),
        ("txt", "public.plain-text"), ("html", "public.html"), ("zip", "public.zip-archive"), ("gz", "org.gnu.gnu-zip-archive"),
        ("mp4", "public.mpeg-4"), ("mov", "com.apple.quicktime-movie"), ("plist", "com.apple.property-list"),
        ("icns", "com.apple.icns"), ("json", "public.json"), ("rtf", "public.rtf"),
    ])
    func commonExtensionsHaveTheirTypes(ext: String, type: String) throws {
        let row = try #require(Self.rows[type])
        #expect(row.declaration.extensions.contains(ext))
        #expect(Self.ancestors(of: type).contains("public.data"), "\(type)")
        #expect(Self.ancestors(of: type).contains("public.item"), "\(type)")
    }

    /// A zip archive is PKWARE's format, and an archive: the chain a Mac declares.
    @Test func zipConformsThroughPKWare() {
        #expect(Self.rows["public.zip-archive"]?.declaration.conformsTo == ["com.pkware.zip-archive"])
        #expect(Self.ancestors(of: "public.zip-archive").isSuperset(of: ["com.pkware.zip-archive", "public.archive", "public.data"]))
    }

    /// Applications and their bundles: an `.app` is an application, a bundle and a package.
    @Test func anApplicationBundleIsAnApplication() {
        #expect(Self.ancestors(of: "com.apple.application-bundle").isSuperset(of: [
            "com.apple.application", "public.executable", "com.apple.bundle", "com.apple.package", "public.directory", "public.item",
        ]))
    }

    /// The content rows add no package extension: the only one that conforms to the package type,
    /// `com.apple.rtfd`, has a built-in extension.
    @Test func contentRowsAddNoPackageExtension() {
        let contentRows = Self.table.rows.filter { $0.source.hasPrefix("dump") && $0.declaration.identifier.lowercased().hasPrefix("public.") }
        let conformance = TypeConformance(Self.table.declarations)
        let packages = contentRows.filter { conformance.conformsToPackage($0.declaration.identifier) }
        #expect(packages.map(\.declaration.identifier) == ["public.avchd-collection"])
        #expect(conformance.conformsToPackage("com.apple.rtfd"))
        #expect(PackageRules.builtInPackageExtensions.contains("rtfd"))
        #expect(!Self.table.packageExtensions.contains("rtfd"))
    }
}
