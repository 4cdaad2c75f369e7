@testable import BundleModel
import Codecs
import Fixtures
import SystemCalls
import Testing

/// Rules 28 to 30: the type database, what an application claims, and the ranking of handlers.
@Suite struct LaunchServicesTests {
    /// A small system: images, text, folders and the roots, as a Mac declares them.
    static let system: [TypeDatabase.Declaration] = [
        .init(identifier: "public.item", conformsTo: [], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.content", conformsTo: [], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.data", conformsTo: ["public.item"], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.directory", conformsTo: ["public.item"], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.folder", conformsTo: ["public.directory"], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.image", conformsTo: ["public.data", "public.content"], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.jpeg", conformsTo: ["public.image"], extensions: ["jpg", "jpeg"], mimeTypes: ["image/jpeg"], origin: .system),
        .init(identifier: "public.png", conformsTo: ["public.image"], extensions: ["png"], mimeTypes: ["image/png"], origin: .system),
        .init(identifier: "public.text", conformsTo: ["public.data", "public.content"], extensions: [], mimeTypes: [], origin: .system),
        .init(identifier: "public.plain-text", conformsTo: ["public.text"], extensions: ["txt"], mimeTypes: ["text/plain"], origin: .system),
    ]

    static func info(_ pairs: [String: PlistValue]) -> InfoDictionary { InfoDictionary(pairs) }

    static func documentType(_ members: [String: PlistValue]) -> PlistValue { .dictionary(members) }

    static func application(_ path: String, version: String = "1", documentTypes: [PlistValue] = [], urlTypes: [PlistValue] = [],
                            declarations: [String: PlistValue] = [:]) -> (HandlerRanking.Application, [TypeDeclaration]) {
        var raw: [String: PlistValue] = ["CFBundleIdentifier": .string("org.example." + FilePath(path).lastComponent.string),
                                         "CFBundleVersion": .string(version)]
        if !documentTypes.isEmpty { raw["CFBundleDocumentTypes"] = .array(documentTypes) }
        if !urlTypes.isEmpty { raw["CFBundleURLTypes"] = .array(urlTypes) }
        raw.merge(declarations) { $1 }
        let dictionary = info(raw)
        return (HandlerRanking.Application(path: FilePath(path), identifier: dictionary.identifier, version: version,
                                           claims: LaunchClaim.claims(in: dictionary)),
                TypeDeclaration.parse(dictionary))
    }

    static func database(_ applications: [(HandlerRanking.Application, [TypeDeclaration])] = []) -> TypeDatabase {
        var all = system
        for (application, declarations) in applications {
            all += TypeDatabase(system: SystemPackageTypes(tsv: []), applications: [(application.path, declarations)]).declarations.values.flatMap { $0 }
        }
        return TypeDatabase(all)
    }

    static func names(_ handlers: [HandlerRanking.Handler]) -> [String] { handlers.map { $0.application.path.lastComponent.string } }

    // MARK: rule 28

    @Test func conformanceIsAClosureWithStepsAndCyclesEnd() {
        let database = TypeDatabase(Self.system + [
            .init(identifier: "org.example.a", conformsTo: ["org.example.b"], extensions: [], mimeTypes: [], origin: .exported),
            .init(identifier: "org.example.b", conformsTo: ["org.example.a", "public.jpeg"], extensions: [], mimeTypes: [], origin: .exported),
        ])
        let jpeg = Dictionary(uniqueKeysWithValues: database.conformance(of: "PUBLIC.JPEG").map { ($0.type, $0.steps) })
        #expect(jpeg == ["public.jpeg": 0, "public.image": 1, "public.data": 2, "public.content": 2, "public.item": 3])
        #expect(database.types(forExtension: "JPG") == ["public.jpeg"])
        #expect(database.types(forMIMEType: "image/PNG") == ["public.png"])
        // A cycle ends where it meets a type again.
        #expect(database.conformance(of: "org.example.a").map(\.type) == ["org.example.a", "org.example.b", "public.jpeg", "public.image", "public.data", "public.content", "public.item"])
        #expect(database.conforms("org.example.b", to: "public.item"))
        #expect(database.conformance(of: "org.example.unknown").map(\.type) == ["org.example.unknown"])
    }

    @Test func theSystemWinsThenAnExportThenAnImport() {
        let exporter = FilePath("/Apps/Exporter.app"), importer = FilePath("/Apps/Importer.app")
        let database = TypeDatabase(Self.system + [
            .init(identifier: "org.example.doc", conformsTo: ["public.data"], extensions: ["exd"], mimeTypes: [], origin: .imported, declaredBy: importer),
            .init(identifier: "org.example.doc", conformsTo: ["public.text"], extensions: ["doc2"], mimeTypes: [], origin: .exported, declaredBy: exporter),
            .init(identifier: "public.jpeg", conformsTo: ["public.data"], extensions: ["jpx"], mimeTypes: [], origin: .exported, declaredBy: exporter),
        ])
        #expect(database.declaration("org.example.DOC")?.declaredBy == exporter)
        #expect(database.declaration("org.example.doc")?.extensions == ["doc2"])
        #expect(database.types(forExtension: "exd").isEmpty && database.types(forExtension: "doc2") == ["org.example.doc"])
        #expect(database.declaration("public.jpeg")?.origin == .system && database.types(forExtension: "jpx").isEmpty)
        #expect(database.declarations["org.example.doc"]?.map(\.origin) == [.exported, .imported])
    }

    // MARK: rule 29

    @Test func contentTypesOverrideExtensionsAndMIMETypes() {
        let claims = LaunchClaim.claims(in: Self.info(["CFBundleDocumentTypes": .array([
            Self.documentType(["LSItemContentTypes": .array([.string("public.jpeg")]), "CFBundleTypeExtensions": .array([.string("gif")]),
                               "CFBundleTypeMIMETypes": .array([.string("image/gif")]), "CFBundleTypeRole": .string("editor"),
                               "LSHandlerRank": .string("OWNER")]),
            Self.documentType(["CFBundleTypeExtensions": .array([.string(".TXT"), .string("*")]), "CFBundleTypeMIMETypes": .array([.string("Text/Plain")]),
                               "CFBundleTypeOSTypes": .array([.string("TEXT"), .string("****")])]),
        ])]))
        #expect(claims == [
            LaunchClaim(target: .type("public.jpeg"), role: .editor, rank: .owner),
            LaunchClaim(target: .fileExtension("txt"), role: .viewer, rank: .default),
            LaunchClaim(target: .everything, role: .viewer, rank: .default),
            LaunchClaim(target: .mimeType("text/plain"), role: .viewer, rank: .default),
        ])
    }

    @Test func urlSchemesAreClaimedWithoutCase() {
        let (zoom, _) = Self.application("/Apps/Zoom.app", urlTypes: [Self.documentType([
            "CFBundleURLSchemes": .array([.string("ZoomMTG"), .string("zoomus")]), "CFBundleTypeRole": .string("Viewer"),
        ])])
        #expect(zoom.claims.map(\.target) == [.scheme("zoommtg"), .scheme("zoomus")])
        let handlers = HandlerRanking.handlers(of: .scheme("ZOOMMTG"), among: [zoom], types: Self.database())
        #expect(Self.names(handlers) == ["Zoom.app"])
        #expect(HandlerRanking.handlers(of: .scheme("https"), among: [zoom], types: Self.database()).isEmpty)
    }

    // MARK: rule 30

    @Test func ranksOrderOwnerDefaultAlternateAndNoneOnlyWhenAskedForAll() {
        func app(_ name: String, _ rank: String?) -> HandlerRanking.Application {
            var entry: [String: PlistValue] = ["LSItemContentTypes": .array([.string("public.jpeg")])]
            if let rank { entry["LSHandlerRank"] = .string(rank) }
            return Self.application("/Apps/\(name).app", documentTypes: [.dictionary(entry)]).0
        }
        let apps = [app("A", "Alternate"), app("N", "None"), app("D", nil), app("O", "owner")]
        let database = Self.database()
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "jpg"), among: apps, types: database)) == ["O.app", "D.app", "A.app"])
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "jpg"), among: apps, types: database, all: true)) == ["O.app", "D.app", "A.app", "N.app"])
    }

    @Test func newerVersionsFirstWithinARankThenThePath() {
        let entry = Self.documentType(["CFBundleTypeExtensions": .array([.string("jpg")])])
        let apps = [
            Self.application("/Apps/B.app", version: "1.9", documentTypes: [entry]).0,
            Self.application("/Apps/C.app", version: "1.10", documentTypes: [entry]).0,
            Self.application("/Apps/A.app", version: "1.9", documentTypes: [entry]).0,
        ]
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "jpg"), among: apps, types: Self.database())) == ["C.app", "A.app", "B.app"])
    }

    @Test func exactClaimsBeforeClaimsThroughConformanceBeforeEverything() {
        func app(_ name: String, _ entry: [String: PlistValue]) -> HandlerRanking.Application {
            Self.application("/Apps/\(name).app", version: name == "Wild" ? "99" : "1", documentTypes: [.dictionary(entry)]).0
        }
        let apps = [
            app("Wild", ["CFBundleTypeExtensions": .array([.string("*")]), "LSHandlerRank": .string("Owner")]),
            app("Data", ["LSItemContentTypes": .array([.string("public.data")]), "LSHandlerRank": .string("Owner")]),
            app("Image", ["LSItemContentTypes": .array([.string("public.image")])]),
            app("Jpeg", ["LSItemContentTypes": .array([.string("public.jpeg")])]),
            app("Mime", ["CFBundleTypeMIMETypes": .array([.string("image/jpeg")]), "LSHandlerRank": .string("Alternate")]),
            app("Text", ["LSItemContentTypes": .array([.string("public.plain-text")])]),
        ]
        let handlers = HandlerRanking.handlers(of: .file(extension: "JPEG"), among: apps, types: Self.database())
        // Claims of everything come last whatever their rank; the rest by rank, then steps.
        #expect(Self.names(handlers) == ["Jpeg.app", "Image.app", "Mime.app", "Wild.app", "Data.app"])
        #expect(handlers.map(\.steps) == [0, 1, 0, 0, 2])
        // A folder is no document: only claims of folders open it.
        #expect(HandlerRanking.handlers(of: .folder, among: apps, types: Self.database()).isEmpty)
        // A file of no known type is data: claims of everything open it.
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "xyz"), among: apps, types: Self.database())) == ["Wild.app", "Data.app"])
    }

    @Test func anAppDeclaredTypeIsClaimedByItsExporterAndItsImporter() {
        let declaration: PlistValue = .array([.dictionary([
            "UTTypeIdentifier": .string("org.example.sketch"), "UTTypeConformsTo": .array([.string("public.data")]),
            "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("sketch")]),
                                                   "public.mime-type": .string("application/x-sketch")]),
        ])])
        let claim = Self.documentType(["LSItemContentTypes": .array([.string("org.example.sketch")])])
        let exporter = Self.application("/Apps/Sketch.app", documentTypes: [Self.documentType([
            "LSItemContentTypes": .array([.string("org.example.sketch")]), "LSHandlerRank": .string("Owner"), "CFBundleTypeRole": .string("Editor"),
        ])], declarations: ["UTExportedTypeDeclarations": declaration])
        let importer = Self.application("/Apps/Viewer.app", documentTypes: [claim], declarations: ["UTImportedTypeDeclarations": declaration])
        #expect(exporter.1.first?.mimeTypes == ["application/x-sketch"])
        let database = Self.database([exporter, importer])
        #expect(database.declaration("org.example.sketch")?.origin == .exported)
        let handlers = HandlerRanking.handlers(of: .file(extension: "sketch"), among: [importer.0, exporter.0], types: database)
        #expect(Self.names(handlers) == ["Sketch.app", "Viewer.app"])
        // Asked for editors, the viewer does not count; asked for viewers, the editor does.
        #expect(Self.names(HandlerRanking.handlers(of: .type("org.example.sketch"), among: [importer.0, exporter.0], types: database, role: .editor)) == ["Sketch.app"])
        #expect(Self.names(HandlerRanking.handlers(of: .type("org.example.sketch"), among: [importer.0, exporter.0], types: database, role: .viewer)) == ["Sketch.app", "Viewer.app"])
    }

    @Test func eachApplicationCountsOnceWithItsBestClaim() {
        let app = Self.application("/Apps/Both.app", documentTypes: [
            Self.documentType(["LSItemContentTypes": .array([.string("public.image")]), "LSHandlerRank": .string("Alternate")]),
            Self.documentType(["LSItemContentTypes": .array([.string("public.jpeg")]), "LSHandlerRank": .string("Owner")]),
        ]).0
        let handlers = HandlerRanking.handlers(of: .type("public.jpeg"), among: [app], types: Self.database())
        #expect(handlers.count == 1 && handlers.first?.claim.rank == .owner && handlers.first?.steps == 0)
    }

    /// Rule 14 reads the same type database: the declaration that counts gives the extensions.
    @Test func packageClaimsFollowTheDeclarationThatCounts() {
        func declaration(_ ext: String, exported: Bool) -> TypeDeclaration {
            TypeDeclaration(identifier: "org.example.bundle-doc", conformsTo: ["com.apple.package"], extensions: [ext], exported: exported)
        }
        let claim = DocumentType(extensions: [], contentTypes: ["org.example.bundle-doc"], isPackage: false)
        let importer = ClaimResolver.Application(path: "/Apps/Importer.app", documentTypes: [claim], typeDeclarations: [declaration("old", exported: false)])
        let exporter = ClaimResolver.Application(path: "/Apps/Exporter.app", documentTypes: [], typeDeclarations: [declaration("doc", exported: true)])
        #expect(Set(ClaimResolver.claims(of: [importer]).map(\.ext)) == ["old"])
        #expect(Set(ClaimResolver.claims(of: [importer, exporter]).map(\.ext)) == ["doc"])
        // A system type's extensions, whatever an application says of it.
        let rtfd = ClaimResolver.Application(path: "/Apps/Writer.app", documentTypes: [DocumentType(extensions: [], contentTypes: ["com.apple.rtfd"], isPackage: false)],
                                             typeDeclarations: [TypeDeclaration(identifier: "com.apple.rtfd", conformsTo: ["com.apple.package"], extensions: ["rtfx"], exported: true)])
        #expect(Set(ClaimResolver.claims(of: [rtfd]).map(\.ext)) == ["rtfd"])
    }

    @Test func gnustepNSTypesClaimTheirExtensionsAndMIMETypes() {
        let claims = LaunchClaim.claims(in: Self.info(["NSTypes": .array([
            .dictionary(["NSName": .string("jpg"), "NSUnixExtensions": .array([.string("jpg"), .string("JPEG")]),
                         "NSDOSExtensions": .array([.string("jpg")]), "NSMIMETypes": .array([.string("image/jpeg")]), "NSRole": .string("Viewer")]),
            .dictionary(["NSUnixExtensions": .array([.string("rtf")]), "NSRole": .string("Editor")]),
        ])]))
        #expect(claims == [
            LaunchClaim(target: .fileExtension("jpg"), role: .viewer, rank: .default),
            LaunchClaim(target: .fileExtension("jpeg"), role: .viewer, rank: .default),
            LaunchClaim(target: .mimeType("image/jpeg"), role: .viewer, rank: .default),
            LaunchClaim(target: .fileExtension("rtf"), role: .editor, rank: .default),
        ])
    }

    /// Rule 29, as GNUstep's make_services reads NSTypes: NSUnixExtensions only (not
    /// NSDOSExtensions), `*` a literal extension, an absent or empty NSRole an editor.
    @Test func gnustepNSTypesAreReadAsMakeServicesReadsThem() {
        let claims = LaunchClaim.claims(in: Self.info(["NSTypes": .array([
            .dictionary(["NSUnixExtensions": .array([.string("vcf")]), "NSDOSExtensions": .array([.string("vcd")])]),
            .dictionary(["NSUnixExtensions": .array([.string("ics")]), "NSRole": .string("")]),
            .dictionary(["NSUnixExtensions": .array([.string("*")]), "NSRole": .string("Viewer")]),
        ])]))
        #expect(claims == [
            LaunchClaim(target: .fileExtension("vcf"), role: .editor, rank: .default),
            LaunchClaim(target: .fileExtension("ics"), role: .editor, rank: .default),
            LaunchClaim(target: .fileExtension("*"), role: .viewer, rank: .default),
        ])
        // `*` is an extension like any other: it opens a file named `x.*`, not every document.
        let app = HandlerRanking.Application(path: "/Apps/Star.app", identifier: "org.example.star", version: "1", claims: claims)
        #expect(HandlerRanking.handlers(of: .file(extension: "txt"), among: [app], types: Self.database()).isEmpty)
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "*"), among: [app], types: Self.database())) == ["Star.app"])
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "vcf"), among: [app], types: Self.database(), role: .editor)) == ["Star.app"])
    }

    /// Rule 29: a claim of role None declares an icon, not a handler: listed only with `all`, and
    /// never the default application.
    @Test func aClaimOfRoleNoneIsListedOnlyWithAll() {
        let icon = Self.application("/Apps/Icon.app", documentTypes: [Self.documentType([
            "CFBundleTypeExtensions": .array([.string("pikogrid")]), "CFBundleTypeRole": .string("None"), "LSHandlerRank": .string("Owner"),
        ])]).0
        let editor = Self.application("/Apps/Editor.app", documentTypes: [Self.documentType([
            "CFBundleTypeExtensions": .array([.string("pikogrid")]), "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Alternate"),
        ])]).0
        #expect(HandlerRanking.handlers(of: .file(extension: "pikogrid"), among: [icon], types: Self.database()).isEmpty)
        let all = HandlerRanking.handlers(of: .file(extension: "pikogrid"), among: [icon, editor], types: Self.database(), all: true)
        #expect(Self.names(all) == ["Icon.app", "Editor.app"])
        #expect(HandlerRanking.defaultIndex(all, role: nil) == 1)
        #expect(HandlerRanking.defaultIndex(Array(all.prefix(1)), role: nil) == nil)
        #expect(Self.names(HandlerRanking.handlers(of: .file(extension: "pikogrid"), among: [icon, editor], types: Self.database())) == ["Editor.app"])
    }

    /// The ranking sorts by keys worked out once per handler; its order is still rule 30's pairwise
    /// one, versions that compare the same (`1.0` and `1.00`) falling through to the path.
    @Test func theKeyedSortKeepsRule30sOrder() {
        var generator = SeededGenerator(seed: 30)
        let versions = ["1.0", "1.00", "1.0b2", "1.10", "1.9", "2", "", "1.0.1", "10a"]
        let ranks = ["Owner", "Default", "Alternate", "None", "bogus"]
        let types = ["public.jpeg", "public.image", "public.data"]
        let apps = (0..<300).map { index in
            Self.application("/Apps/App\(Int.random(in: 0..<1000, using: &generator)).\(index).app",
                             version: versions.randomElement(using: &generator)!, documentTypes: [
                .dictionary(["LSItemContentTypes": .array([.string(types.randomElement(using: &generator)!)]),
                             "LSHandlerRank": .string(ranks.randomElement(using: &generator)!)]),
            ]).0
        }
        let handlers = HandlerRanking.handlers(of: .file(extension: "jpg"), among: apps, types: Self.database(), all: true)
        #expect(handlers.count == 300)
        #expect(Self.names(handlers) == Self.names(handlers.sorted(by: HandlerRanking.precedes)))
    }

    /// An extension is part of a file name: NFC and NFD twins are two questions and two claims.
    @Test func extensionTwinsInNFCAndNFDAreTwoQuestions() {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd) // as Swift compares them
        #expect(HandlerRanking.Question.file(extension: nfc) != .file(extension: nfd))
        #expect(Set([HandlerRanking.Question.file(extension: nfc), .file(extension: nfd), .file(extension: nfc)]).count == 2)
        let claimingNFD = HandlerRanking.Application(path: "/Apps/D.app", identifier: "org.example.d", version: "1",
                                                     claims: [LaunchClaim(target: .fileExtension(nfd), role: .viewer, rank: .default)])
        let database = TypeDatabase(TypeDatabase.standardSystem)
        #expect(HandlerRanking.handlers(of: .file(extension: nfd), among: [claimingNFD], types: database).count == 1)
        #expect(HandlerRanking.handlers(of: .file(extension: nfc), among: [claimingNFD], types: database).isEmpty)
    }
}
