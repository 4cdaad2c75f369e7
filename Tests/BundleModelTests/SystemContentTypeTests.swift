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

    /// Rule 28: every type Apple's UTCoreTypes.h declares (CoreServices, the macOS 10.15 SDK's
    /// copy), written out, is a row citing the header; `.ci/compare-system-types` checks the
    /// same against the header itself.
    static let coreTypesHeader: [String] = [
        "public.item", "public.content", "public.composite-content", "public.message", "public.contact",
        "public.archive", "public.disk-image", "public.data", "public.directory", "com.apple.resolvable",
        "public.symlink", "public.executable", "com.apple.mount-point", "com.apple.alias-file",
        "com.apple.alias-record", "com.apple.bookmark", "public.url", "public.file-url", "public.text",
        "public.plain-text", "public.utf8-plain-text", "public.utf16-external-plain-text", "public.utf16-plain-text",
        "public.delimited-values-text", "public.comma-separated-values-text", "public.tab-separated-values-text",
        "public.utf8-tab-separated-values-text", "public.rtf", "public.html", "public.xml", "public.source-code",
        "public.assembly-source", "public.c-source", "public.objective-c-source", "public.swift-source",
        "public.c-plus-plus-source", "public.objective-c-plus-plus-source", "public.c-header",
        "public.c-plus-plus-header", "com.sun.java-source", "public.script", "com.apple.applescript.text",
        "com.apple.applescript.script", "com.apple.applescript.script-bundle", "com.netscape.javascript-source",
        "public.shell-script", "public.perl-script", "public.python-script", "public.ruby-script", "public.php-script",
        "public.json", "com.apple.property-list", "com.apple.xml-property-list", "com.apple.binary-property-list",
        "com.adobe.pdf", "com.apple.rtfd", "com.apple.flat-rtfd", "com.apple.txn.text-multimedia-data",
        "com.apple.webarchive", "public.image", "public.jpeg", "public.jpeg-2000", "public.tiff", "com.apple.pict",
        "com.compuserve.gif", "public.png", "com.apple.quicktime-image", "com.apple.icns", "com.microsoft.bmp",
        "com.microsoft.ico", "public.camera-raw-image", "public.svg-image", "com.apple.live-photo",
        "public.audiovisual-content", "public.movie", "public.video", "public.audio", "com.apple.quicktime-movie",
        "public.mpeg", "public.mpeg-2-video", "public.mpeg-2-transport-stream", "public.mp3", "public.mpeg-4",
        "public.mpeg-4-audio", "com.apple.protected-mpeg-4-audio", "com.apple.protected-mpeg-4-video", "public.avi",
        "public.aiff-audio", "com.microsoft.waveform-audio", "public.midi-audio", "public.playlist",
        "public.m3u-playlist", "public.folder", "public.volume", "com.apple.package", "com.apple.bundle",
        "com.apple.plugin", "com.apple.metadata-importer", "com.apple.quicklook-generator", "com.apple.xpc-service",
        "com.apple.framework", "com.apple.application", "com.apple.application-bundle", "com.apple.application-file",
        "public.unix-executable", "com.microsoft.windows-executable", "com.sun.java-class", "com.sun.java-archive",
        "com.apple.systempreference.prefpane", "org.gnu.gnu-zip-archive", "public.bzip2-archive", "public.zip-archive",
        "public.spreadsheet", "public.presentation", "public.database", "public.vcard", "public.to-do-item",
        "public.calendar-event", "public.email-message", "com.apple.internet-location", "com.apple.ink.inktext",
        "public.font", "public.bookmark", "public.3d-content", "com.rsa.pkcs-12", "public.x509-certificate",
        "org.idpf.epub-container", "public.log",
    ]

    @Test func everyTypeOfUTCoreTypesIsARowCitingIt() {
        #expect(Self.coreTypesHeader.count == 128)
        #expect(Self.coreTypesHeader.filter { Self.rows[$0.lowercased()] == nil } == [])
        #expect(Self.coreTypesHeader.filter { Self.rows[$0.lowercased()].map { !$0.source.contains("UTCoreTypes.h") } ?? false } == [])
    }

    /// The extensions issue 38 found without a type, and the types macOS declares for them.
    @Test(arguments: [
        ("js", "com.netscape.javascript-source"), ("java", "com.sun.java-source"), ("jar", "com.sun.java-archive"),
        ("bmp", "com.microsoft.bmp"), ("ico", "com.microsoft.ico"), ("wav", "com.microsoft.waveform-audio"),
        ("epub", "org.idpf.epub-container"), ("webarchive", "com.apple.webarchive"), ("dmg", "com.apple.disk-image-udif"),
        ("ps", "com.adobe.postscript"), ("md", "net.daringfireball.markdown"), ("xz", "org.tukaani.xz-archive"),
        ("xar", "com.apple.xar-archive"), ("class", "com.sun.java-class"),
    ])
    func coreTypesHaveTheirExtensions(ext: String, type: String) {
        #expect(TypeDatabase.standardSystemDatabase.types(forExtension: ext) == [type])
        #expect(Self.ancestors(of: type).contains("public.data"), "\(type)")
    }

    /// The header: MPEG-4 audio is an MPEG-4 file (so a movie player claiming public.mpeg-4 is
    /// offered an `.m4a`), which the dump's declaration leaves out.
    @Test func mpeg4AudioIsMPEG4() {
        #expect(Self.rows["public.mpeg-4-audio"]?.declaration.conformsTo == ["public.audio", "public.mpeg-4"])
        #expect(TypeDatabase.standardSystemDatabase.conforms("public.mpeg-4-audio", to: "public.movie"))
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
