public import BundleModel
public import SystemCalls

/// A bundle or package as the catalogue keeps it: its row id and the whole record written.
public struct CataloguedBundle: Sendable {
    public var id: Int64
    public var record: BundleRecord

    package init(id: Int64, record: BundleRecord) {
        self.id = id
        self.record = record
    }
}

/// What to list: an exact identifier or a glob, a kind, a subtree. Identifiers match
/// case-insensitively; a glob understands `*` and `?`.
public struct BundleQuery: Sendable {
    public var identifier: String?
    public var kind: String?
    public var under: FilePath?
    /// A Mach-O UUID or ELF build-id, as `BinarySlice.uuidKey` makes it comparable (rule 25).
    public var uuidKey: String?
    /// Bundles with a slice of this architecture.
    public var arch: String?
    /// Only bundles inside archives (true), only loose ones (false), or both (nil).
    public var inArchives: Bool?
    /// Bundles that provide this CFPlugIn type, as `PlugInProvision.typeKey` spells it (rule 31).
    public var plugInType: String?
    /// Bundles that are extensions of this extension point (rule 31).
    public var extensionPoint: String?
    /// Bundles whose executable runs there (rule 32).
    public var runsOn: RunTarget?
    /// A pattern one of a bundle's names matches: its file name, identifier, Info.plist's
    /// CFBundleName or CFBundleDisplayName, or either of those in a localization's InfoPlist.strings.
    public var name: NamePattern?

    public init(identifier: String? = nil, kind: String? = nil, under: FilePath? = nil, uuidKey: String? = nil, arch: String? = nil,
                inArchives: Bool? = nil) {
        self.inArchives = inArchives
        self.identifier = identifier
        self.kind = kind
        self.under = under
        self.uuidKey = uuidKey
        self.arch = arch
    }

    public var identifierIsGlob: Bool { identifier.map { $0.contains("*") || $0.contains("?") } ?? false }
}

/// How a name is matched. Text of three characters or more is found through the catalogue's
/// trigram index (schema v19) in any case, as SQLite's FTS5 folds it (Unicode's simple case
/// folding); shorter text is a pattern each name is scanned with: LIKE folds ASCII letters' case
/// and is the faster (a quarter of GLOB's time with classes at 50,000 bundles); GLOB is
/// case-sensitive, its classes (`[éÉ]`) fold others.
public enum NamePattern: Sendable, Equatable {
    /// Text inside a name, any of these forms (the same text in NFC and NFD, where they differ:
    /// names are kept as written, and macOS writes file names in NFD), each three characters or more.
    case text([String])
    /// `%`, `_`, and `\\` as the escape.
    case like(String)
    case glob(String)
}
