import Codecs
public import SystemCalls

/// One entry of an application's CFBundleDocumentTypes.
public struct DocumentType: Sendable, Hashable {
    public var name: String?
    public var role: String?
    /// Lower-cased extensions from CFBundleTypeExtensions, without `*` and leading dots.
    public var extensions: [String]
    /// LSItemContentTypes.
    public var contentTypes: [String]
    /// LSTypeIsPackage (true, 1, YES, true all count).
    public var isPackage: Bool
    /// CFBundleTypeIconFile as written, and the file it names in the application, when found
    /// (rule 21: a claimed document package shows this icon).
    public var iconFile: String?
    public var iconPath: FilePath?

    public init(name: String? = nil, role: String? = nil, extensions: [String], contentTypes: [String] = [], isPackage: Bool,
                iconFile: String? = nil, iconPath: FilePath? = nil) {
        self.name = name
        self.role = role
        self.extensions = extensions
        self.contentTypes = contentTypes
        self.isPackage = isPackage
        self.iconFile = iconFile
        self.iconPath = iconPath
    }

    /// The entries of CFBundleDocumentTypes; malformed entries are skipped.
    public static func parse(_ info: InfoDictionary) -> [DocumentType] {
        (info.raw["CFBundleDocumentTypes"]?.array ?? []).compactMap { entry in
            guard let dictionary = entry.dictionary else { return nil }
            return DocumentType(
                name: dictionary["CFBundleTypeName"]?.string,
                role: dictionary["CFBundleTypeRole"]?.string,
                extensions: normalizedExtensions(dictionary["CFBundleTypeExtensions"]?.stringList ?? []),
                contentTypes: dictionary["LSItemContentTypes"]?.stringList ?? [],
                isPackage: dictionary["LSTypeIsPackage"]?.isTruthy ?? false,
                iconFile: dictionary["CFBundleTypeIconFile"]?.string.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    static func normalizedExtensions(_ values: [String]) -> [String] {
        var result: [String] = []
        for value in values {
            var ext = Substring(value.trimmingSpaces)
            while ext.hasPrefix(".") { ext = ext.dropFirst() }
            let lowered = ext.lowercased()
            if lowered.isEmpty || lowered.contains("*") || lowered.contains("/") || result.contains(lowered) { continue }
            result.append(lowered)
        }
        return result
    }
}

/// A uniform type declaration from UTExportedTypeDeclarations or UTImportedTypeDeclarations.
public struct TypeDeclaration: Sendable, Hashable, Codable {
    public var identifier: String
    public var conformsTo: [String]
    /// Lower-cased `public.filename-extension` tags.
    public var extensions: [String]
    /// `public.mime-type` tags, as declared (rule 28).
    public var mimeTypes: [String]
    /// UTTypeDescription.
    public var description: String?
    public var exported: Bool

    public init(identifier: String, conformsTo: [String], extensions: [String], mimeTypes: [String] = [],
                description: String? = nil, exported: Bool) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.extensions = extensions
        self.mimeTypes = mimeTypes
        self.description = description
        self.exported = exported
    }

    public static func parse(_ info: InfoDictionary) -> [TypeDeclaration] {
        var declarations: [TypeDeclaration] = []
        for (key, exported) in [("UTExportedTypeDeclarations", true), ("UTImportedTypeDeclarations", false)] {
            for entry in info.raw[key]?.array ?? [] {
                guard let dictionary = entry.dictionary, let identifier = dictionary["UTTypeIdentifier"]?.string else { continue }
                let tags = dictionary["UTTypeTagSpecification"]?.dictionary
                declarations.append(TypeDeclaration(
                    identifier: identifier,
                    conformsTo: dictionary["UTTypeConformsTo"]?.stringList ?? [],
                    extensions: DocumentType.normalizedExtensions(tags?["public.filename-extension"]?.stringList ?? []),
                    mimeTypes: (tags?["public.mime-type"]?.stringList ?? []).map(\.trimmingSpaces).filter { !$0.isEmpty },
                    description: dictionary["UTTypeDescription"]?.string,
                    exported: exported))
            }
        }
        return declarations
    }
}

/// One extension an application claims as a package type, and how (rule 14).
public struct PackageClaim: Sendable, Hashable {
    public var applicationPath: FilePath
    public var ext: String
    /// nil when claimed through CFBundleTypeExtensions with LSTypeIsPackage; else the type
    /// identifier whose declaration conforms to `com.apple.package`.
    public var contentType: String?
    /// The claiming document type's icon file, when the application has it.
    public var icon: FilePath?

    public init(applicationPath: FilePath, ext: String, contentType: String?, icon: FilePath? = nil) {
        self.applicationPath = applicationPath
        self.ext = ext
        self.contentType = contentType
        self.icon = icon
    }
}

/// Computes which extensions are claimed as package types by the catalogued applications (rule 14).
/// Claims are global: any application's type declarations count for any other's document types.
public enum ClaimResolver {
    public struct Application: Sendable {
        public var path: FilePath
        public var documentTypes: [DocumentType]
        public var typeDeclarations: [TypeDeclaration]

        public init(path: FilePath, documentTypes: [DocumentType], typeDeclarations: [TypeDeclaration]) {
            self.path = path
            self.documentTypes = documentTypes
            self.typeDeclarations = typeDeclarations
        }
    }

    /// The type database of rule 28 (the system's table, the applications' exports and imports)
    /// decides which types are packages and which extensions they have, so a document type naming a
    /// system type by identifier alone is understood, and rule 14 and `open-with` agree.
    public static func claims(of applications: [Application], systemTypes: SystemPackageTypes = .standard) -> [PackageClaim] {
        PackageClaimBook(applications, systemTypes: systemTypes).claims
    }

    /// One application's claims, given every declaration and the types that are packages.
    static func claims(of application: Application, types: TypeDatabase, packageTypes: Set<String>) -> [PackageClaim] {
        var claims = Set<PackageClaim>()
        for documentType in application.documentTypes {
            if documentType.isPackage {
                for ext in documentType.extensions {
                    claims.insert(PackageClaim(applicationPath: application.path, ext: ext, contentType: nil, icon: documentType.iconPath))
                }
            }
            for contentType in documentType.contentTypes where packageTypes.contains(TypeDatabase.key(contentType)) {
                for ext in types.declaration(contentType)?.extensions ?? [] {
                    claims.insert(PackageClaim(applicationPath: application.path, ext: ext, contentType: contentType, icon: documentType.iconPath))
                }
            }
        }
        return claims.sorted(by: precedes)
    }

    /// Claims' order: by extension, then application, then content type.
    static func precedes(_ a: PackageClaim, _ b: PackageClaim) -> Bool {
        (a.ext, a.applicationPath, a.contentType ?? "") < (b.ext, b.applicationPath, b.contentType ?? "")
    }
}
