/// Rule 32: where an application runs: a platform, perhaps at a version, perhaps on an
/// architecture (`macos:15.0/arm64`, `macos/x86_64`, `ios:17.0`).
public struct RunTarget: Sendable, Hashable, CustomStringConvertible {
    /// Lower-cased, as `MachONames.platform` spells it (`macos`, `ios`, `maccatalyst`...).
    public var platform: String
    public var version: String?
    public var arch: String?

    public init(platform: String, version: String? = nil, arch: String? = nil) {
        self.platform = platform.lowercased()
        self.version = version
        self.arch = arch
    }

    /// `PLATFORM[:VERSION][/ARCH]`; nil when it is not of that form.
    public init?(parsing text: String) {
        let (rest, arch) = Self.split(Substring(text), at: "/")
        let (platform, version) = Self.split(rest, at: ":")
        guard !platform.isEmpty, version.map({ !$0.isEmpty && $0.allSatisfy { $0.isNumber || $0 == "." } }) ?? true,
              arch.map({ !$0.isEmpty }) ?? true
        else { return nil }
        self.init(platform: String(platform), version: version.map(String.init), arch: arch.map(String.init))
    }

    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    public var description: String { platform + (version.map { ":" + $0 } ?? "") + (arch.map { "/" + $0 } ?? "") }

    /// The slice architectures a machine of `arch` runs natively: an arm64 Mac also runs arm64e
    /// slices, an x86_64 Mac also x86_64h. Translation (Rosetta) is not native.
    public static func nativeArchitectures(_ arch: String) -> Set<String> {
        switch arch {
        case "arm64": ["arm64", "arm64e"]
        case "x86_64": ["x86_64", "x86_64h"]
        default: [arch]
        }
    }

    /// Whether `record`'s executable has a slice that runs here: its architecture (when asked),
    /// its platform, and the version at least the slice's minimum OS and the Info file's minimum
    /// (LSMinimumSystemVersionByArchitecture for the slice's architecture, else
    /// LSMinimumSystemVersion, on macOS; MinimumOSVersion elsewhere).
    public func admits(_ record: BundleRecord) -> Bool {
        guard let executable = record.executable?.relative(to: record.key) else { return false }
        let architectures = arch.map(Self.nativeArchitectures)
        return record.binaries.contains { slice in
            guard slice.file == executable, slice.platform?.lowercased() == platform,
                  architectures.map({ $0.contains(slice.arch) }) ?? true
            else { return false }
            guard let version else { return true }
            let minimums = [slice.minOS, minimumInInfo(record.infoDictionary, arch: slice.arch)].compactMap { $0 }
            return minimums.allSatisfy { BundleVersion.compare(version, $0) != .orderedAscending }
        }
    }

    private func minimumInInfo(_ info: InfoDictionary, arch: String) -> String? {
        guard platform == "macos" else { return info.string("MinimumOSVersion") }
        return info.raw["LSMinimumSystemVersionByArchitecture"]?.dictionary?[arch]?.string ?? info.string("LSMinimumSystemVersion")
    }
}
