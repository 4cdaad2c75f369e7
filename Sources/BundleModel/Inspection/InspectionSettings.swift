/// What inspection needs to know beyond the directory itself.
public struct InspectionSettings: Sendable {
    public var rules: PackageRules
    /// Extensions some catalogued application claims as package types (rule 14), and their icons.
    public var claimed: ClaimedTypes
    /// An Info file larger than this is an error, not a read (a 64 MB "Info.plist" must not hang).
    public var infoFileLimit: Int
    /// The same for InfoPlist.strings and `.localized` strings files.
    public var stringsFileLimit: Int
    /// Whether executables' and DWARF files' headers are read (rule 23). Off only for the
    /// benchmark, which measures what reading them costs (Docs/benchmarks.md).
    public var readsBinaries: Bool

    public init(
        rules: PackageRules = .standard, claimed: ClaimedTypes = ClaimedTypes(),
        infoFileLimit: Int = 8 << 20, stringsFileLimit: Int = 4 << 20, readsBinaries: Bool = true
    ) {
        self.readsBinaries = readsBinaries
        self.rules = rules
        self.claimed = claimed
        self.infoFileLimit = infoFileLimit
        self.stringsFileLimit = stringsFileLimit
    }

    public static let standard = InspectionSettings()
}
