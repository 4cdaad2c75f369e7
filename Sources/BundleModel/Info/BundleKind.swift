/// Rule 9: what kind of thing a bundle or package is. The raw value is what the catalogue, the
/// JSON, the view's `user.bundle.kind` and `query --kind` spell; a CFBundlePackageType the rule
/// does not map is kept as it is written. A string literal is its raw value.
public enum BundleKind: Hashable, Sendable, RawRepresentable, CustomStringConvertible, ExpressibleByStringLiteral {
    case application, framework, bundle, plugin, kext, document
    /// `.appex` and `.xpc`.
    case appExtension
    /// A dSYM's own CFBundlePackageType, kept as is.
    case dSYM
    /// A Time Machine backup (rule 34): a `.sparsebundle` holding the backed-up Mac's machine file.
    case backup
    /// A folder that only carries a bundle's extension (`FolderNamedLikeBundle`): no bundle at all.
    case folder
    /// Any other CFBundlePackageType, as written (`XPC!`, `KEXT`...).
    case packageType(String)

    public init(rawValue: String) {
        switch rawValue {
        case "application": self = .application
        case "framework": self = .framework
        case "bundle": self = .bundle
        case "plugin": self = .plugin
        case "kext": self = .kext
        case "document": self = .document
        case "extension": self = .appExtension
        case "dSYM": self = .dSYM
        case "backup": self = .backup
        case "folder": self = .folder
        default: self = .packageType(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .application: "application"
        case .framework: "framework"
        case .bundle: "bundle"
        case .plugin: "plugin"
        case .kext: "kext"
        case .document: "document"
        case .appExtension: "extension"
        case .dSYM: "dSYM"
        case .backup: "backup"
        case .folder: "folder"
        case let .packageType(type): type
        }
    }

    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public var description: String { rawValue }

    static let byPackageType: [String: BundleKind] = ["APPL": .application, "FMWK": .framework, "BNDL": .bundle]
    static let byExtension: [String: BundleKind] = [
        "app": .application, "framework": .framework, "appex": .appExtension, "xpc": .appExtension,
        "kext": .kext, "plugin": .plugin, "bundle": .bundle, "prefpane": .plugin, "qlgenerator": .plugin,
        "mdimporter": .plugin, "saver": .plugin,
    ]

    /// Extensions whose directories are bundles by name, whatever their contents.
    public static let bundleExtensions: Set<String> = Set(byExtension.keys)

    /// CFBundlePackageType (APPL, FMWK, BNDL mapped; anything else kept as is), else the
    /// extension, else `bundle`. A package that is not a bundle is a `document`, unless its
    /// extension names a bundle kind (an `.app` with its structure missing is still an application).
    public static func of(packageType: String?, lowercasedExtension: String?, isBundle: Bool) -> BundleKind {
        if isBundle, let packageType, !packageType.isEmpty {
            return byPackageType[packageType] ?? BundleKind(rawValue: packageType)
        }
        if let lowercasedExtension, let kind = byExtension[lowercasedExtension] { return kind }
        return isBundle ? .bundle : .document
    }
}
