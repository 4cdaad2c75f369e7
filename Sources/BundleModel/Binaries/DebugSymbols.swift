public import Codecs
public import SystemCalls

/// What macOS's DebugSymbols.framework expects from a `DBGShellCommands` script (rule 25): a
/// property list keyed by UUID, each entry naming the architecture, the DWARF file inside the
/// matching dSYM and the executable with that UUID. `bundlefs symbols` prints it; the view's
/// `.bundlefs/by-uuid/UUID/Info.plist` serves it.
public enum DebugSymbols {
    /// A catalogued slice with a requested UUID, and the bundle it is in.
    public struct Match: Sendable {
        public var bundle: FilePath
        public var isDSYM: Bool
        public var slice: BinarySlice

        public init(bundle: FilePath, isDSYM: Bool, slice: BinarySlice) {
            self.bundle = bundle
            self.isDSYM = isDSYM
            self.slice = slice
        }

        public var file: FilePath { bundle.appending(slice.file) }
    }

    /// The slices of these bundles that have the UUID `key`, dSYMs first, then by path.
    public static func matches(key: String, in bundles: [BundleRecord]) -> [Match] {
        sorted(bundles.flatMap { record in
            record.binaries.filter { $0.uuidKey == key }.map { Match(bundle: record.key, isDSYM: isDSYM(record), slice: $0) }
        })
    }

    /// Matches in the order answers use: dSYMs first, then by path.
    public static func sorted(_ matches: [Match]) -> [Match] {
        matches.sorted { ($0.isDSYM ? 0 : 1, $0.file.string) < ($1.isDSYM ? 0 : 1, $1.file.string) }
    }

    public static func isDSYM(_ record: BundleRecord) -> Bool { isDSYM(name: record.name, kind: record.kind) }

    public static func isDSYM(name: FileName, kind: BundleKind) -> Bool { name.lowercasedExtension == "dsym" || kind == .dSYM }

    /// The UUID as the matching slices spell it: a Mach-O UUID in its canonical form, an ELF
    /// build-id in hex (even one of 16 bytes); nil when nothing matched.
    public static func spelling(_ matches: [Match]) -> String? { matches.first?.slice.uuid }

    /// One UUID's entry, or nil when nothing matched.
    public static func entry(_ matches: [Match]) -> PlistValue? {
        let dSYM = matches.first { $0.isDSYM }
        let executable = matches.first { !$0.isDSYM }
        guard let any = dSYM ?? executable else { return nil }
        var entry: [String: PlistValue] = ["DBGArchitecture": .string(any.slice.arch)]
        if let dSYM { entry["DBGDSYMPath"] = .string(dSYM.file.string) }
        if let executable { entry["DBGSymbolRichExecutable"] = .string(executable.file.string) }
        return .dictionary(entry)
    }

    /// The XML property list for these entries, keyed by the UUIDs as `spelling` gives them.
    public static func plist(_ entries: [(uuid: String, entry: PlistValue)]) -> [UInt8] {
        PropertyListWriter.xml(.dictionary(Dictionary(entries.map { ($0.uuid, $0.entry) }, uniquingKeysWith: { first, _ in first })))
    }
}
