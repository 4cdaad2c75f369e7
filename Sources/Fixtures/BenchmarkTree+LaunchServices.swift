public import Codecs

/// What the benchmark tree's macOS apps claim and declare (BUNDLES.md rules 28 and 29), in a mix
/// like a Mac's, decided by the app's index alone so that the tree stays deterministic:
///
/// - 75 in 100 claim two to four system types of one family through `LSItemContentTypes` (images,
///   text and source, PDF and documents, audio and video, archives); a family's parent type
///   (`public.image`, `public.text`, ...) now and then among them;
/// - 12 in 100 claim old-style: extensions (`CFBundleTypeExtensions`) and MIME types;
/// - the rest claim no documents;
/// - roles: Editor 40 %, Viewer 55 %, Shell 3 %, None 2 %; ranks: absent (Default) 60 %, Default
///   10 %, Alternate 25 %, Owner 3 %, None 2 %;
/// - 1 in 250 also claims everything (`*`, Viewer, Alternate);
/// - 1 in 20 exports a type of its own (`com.example.bench.appN.document`, extension `appNdoc`,
///   conforming to public.data and public.content, or to public.xml one time in four) and owns it;
/// - ten shared formats (`com.example.bench.formatK`, extension `bfmtK`, conforming to public.json)
///   are exported by apps 0, 10, ..., 90 and imported and claimed (Alternate) by 1 in 40;
/// - 1 in 10 registers a URL scheme of its own (`appN`), 1 in 100 `http` and `https` (browsers),
///   1 in 200 `mailto`.
extension BenchmarkTree {
    /// The system types claimed, by family.
    static let typeFamilies: [[String]] = [
        ["public.jpeg", "public.png", "public.tiff", "com.compuserve.gif", "public.svg-image", "public.jpeg-2000", "public.image"],
        ["public.plain-text", "public.rtf", "public.html", "public.json", "public.xml", "public.source-code", "public.text"],
        ["com.adobe.pdf", "public.rtf", "public.plain-text", "public.html"],
        ["public.mpeg-4", "public.mp3", "public.mpeg-4-audio", "public.movie", "public.audio"],
        ["public.zip-archive"],
    ]
    static let oldStyleExtensions = ["txt", "md", "log", "jpg", "png", "csv", "conf", "ini", "yaml", "toml"]
    static let oldStyleMIMETypes = ["text/plain", "text/markdown", "image/jpeg", "image/png", "text/csv", "application/x-yaml"]
    /// Apps `10 * K` export shared format K.
    static let sharedFormats = 10

    public static func sharedFormat(_ format: Int) -> String { "com.example.bench.format\(format)" }
    public static func sharedFormatExtension(_ format: Int) -> String { "bfmt\(format)" }
    public static func ownType(_ index: Int) -> String { "com.example.bench.app\(index).document" }

    /// The Info keys of app `index` that claim and declare (CFBundleDocumentTypes,
    /// UTExportedTypeDeclarations, UTImportedTypeDeclarations, CFBundleURLTypes).
    public static func launchServicesKeys(_ index: Int) -> [String: PlistValue] {
        var generator = SeededGenerator(seed: UInt64(index) &* 0x2545_F491_4F6C_DD1D &+ 0x27)
        func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        func role() -> String {
            switch below(100) {
            case ..<40: "Editor"
            case ..<95: "Viewer"
            case ..<98: "Shell"
            default: "None"
            }
        }
        func rank(_ entry: inout [String: PlistValue]) {
            switch below(100) {
            case ..<60: break
            case ..<70: entry["LSHandlerRank"] = .string("Default")
            case ..<95: entry["LSHandlerRank"] = .string("Alternate")
            case ..<98: entry["LSHandlerRank"] = .string("Owner")
            default: entry["LSHandlerRank"] = .string("None")
            }
        }
        var documentTypes: [PlistValue] = []
        var exported: [PlistValue] = []
        var imported: [PlistValue] = []
        var schemes: [String] = []

        let kind = below(100)
        if kind < 75 {
            let family = typeFamilies[[0, 0, 0, 1, 1, 1, 2, 2, 3, 4][below(10)]]
            var types: [String] = []
            for _ in 0..<min(family.count, 2 + below(3)) {
                let type = family[below(family.count)]
                if !types.contains(type) { types.append(type) }
            }
            var entry: [String: PlistValue] = [
                "CFBundleTypeName": .string("Document"), "CFBundleTypeRole": .string(role()),
                "LSItemContentTypes": .array(types.map(PlistValue.string)),
            ]
            rank(&entry)
            documentTypes.append(.dictionary(entry))
        } else if kind < 87 {
            var extensions: [String] = [], mimeTypes: [String] = []
            for _ in 0..<1 + below(3) { extensions.append(oldStyleExtensions[below(oldStyleExtensions.count)]) }
            if below(2) == 0 { mimeTypes.append(oldStyleMIMETypes[below(oldStyleMIMETypes.count)]) }
            var entry: [String: PlistValue] = [
                "CFBundleTypeName": .string("File"), "CFBundleTypeRole": .string(role()),
                "CFBundleTypeExtensions": .array(extensions.map(PlistValue.string)),
            ]
            if !mimeTypes.isEmpty { entry["CFBundleTypeMIMETypes"] = .array(mimeTypes.map(PlistValue.string)) }
            rank(&entry)
            documentTypes.append(.dictionary(entry))
        }
        if below(250) == 0 {
            documentTypes.append(.dictionary([
                "CFBundleTypeName": .string("Anything"), "CFBundleTypeRole": .string("Viewer"),
                "CFBundleTypeExtensions": .array([.string("*")]), "LSHandlerRank": .string("Alternate"),
            ]))
        }
        if below(20) == 0 {
            let conformsTo: [PlistValue] = below(4) == 0 ? [.string("public.xml")] : [.string("public.data"), .string("public.content")]
            exported.append(declaration(ownType(index), conformsTo: conformsTo, extension: "app\(index)doc", mime: "application/x-bench-app\(index)"))
            documentTypes.append(.dictionary([
                "CFBundleTypeName": .string("Own document"), "CFBundleTypeRole": .string("Editor"),
                "LSItemContentTypes": .array([.string(ownType(index))]), "LSHandlerRank": .string("Owner"),
            ]))
        }
        if index % 10 == 0 && index / 10 < sharedFormats {
            let format = index / 10
            exported.append(declaration(sharedFormat(format), conformsTo: [.string("public.json")],
                                        extension: sharedFormatExtension(format), mime: "application/x-bench-format\(format)"))
            documentTypes.append(.dictionary([
                "CFBundleTypeName": .string("Shared format"), "CFBundleTypeRole": .string("Editor"),
                "LSItemContentTypes": .array([.string(sharedFormat(format))]), "LSHandlerRank": .string("Owner"),
            ]))
        } else if below(40) == 0 {
            let format = below(sharedFormats)
            imported.append(declaration(sharedFormat(format), conformsTo: [.string("public.json")],
                                        extension: sharedFormatExtension(format), mime: "application/x-bench-format\(format)"))
            documentTypes.append(.dictionary([
                "CFBundleTypeName": .string("Shared format"), "CFBundleTypeRole": .string(role()),
                "LSItemContentTypes": .array([.string(sharedFormat(format))]), "LSHandlerRank": .string("Alternate"),
            ]))
        }
        if below(10) == 0 { schemes.append("app\(index)") }
        if below(100) == 0 { schemes += ["http", "https"] }
        if below(200) == 0 { schemes.append("mailto") }

        var keys: [String: PlistValue] = [:]
        if !documentTypes.isEmpty { keys["CFBundleDocumentTypes"] = .array(documentTypes) }
        if !exported.isEmpty { keys["UTExportedTypeDeclarations"] = .array(exported) }
        if !imported.isEmpty { keys["UTImportedTypeDeclarations"] = .array(imported) }
        if !schemes.isEmpty {
            keys["CFBundleURLTypes"] = .array([.dictionary([
                "CFBundleURLName": .string(identifier(index)), "CFBundleTypeRole": .string("Viewer"),
                "CFBundleURLSchemes": .array(schemes.map(PlistValue.string)),
            ])])
        }
        return keys
    }

    private static func declaration(_ identifier: String, conformsTo: [PlistValue], extension ext: String, mime: String) -> PlistValue {
        .dictionary([
            "UTTypeIdentifier": .string(identifier), "UTTypeDescription": .string("Bench document"),
            "UTTypeConformsTo": .array(conformsTo),
            "UTTypeTagSpecification": .dictionary([
                "public.filename-extension": .array([.string(ext)]), "public.mime-type": .array([.string(mime)]),
            ]),
        ])
    }
}
