public import SystemCalls

/// How an entry of a listed directory presents itself to layout detection: symlinks are resolved
/// (a symlink to a directory counts as a directory, rule 2).
public enum EntryKind: Sendable, Equatable {
    case directory
    case file
    case symlinkToDirectory
    case symlinkToFile
    /// A dangling or looping symlink, a FIFO, a device, a socket.
    case other

    public var isDirectoryLike: Bool { self == .directory || self == .symlinkToDirectory }
    public var isFileLike: Bool { self == .file || self == .symlinkToFile }
}

/// One listing of a directory, by real name, for the rules that are decided from it.
public struct Listing: Sendable, Equatable {
    public var entries: [FileName: EntryKind]

    public init(_ entries: [FileName: EntryKind]) { self.entries = entries }

    /// The real spelling of `name` (ASCII): the exact name if present, else the first
    /// case-insensitive match in byte order (rule 2: names match case-insensitively; paths use the
    /// real spelling).
    public func realName(_ name: FileName, where kind: (EntryKind) -> Bool) -> FileName? {
        if let exact = entries[name], kind(exact) { return name }
        let lowered = Array(name.string.lowercased().utf8)
        return entries.keys.filter { key in
            guard key.string.utf8.count == lowered.count, kind(entries[key]!) else { return false }
            return zip(key.string.utf8, lowered).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
        }.min()
    }
}

/// The bundle structures of rule 2.
public enum LayoutKind: String, Sendable, Codable {
    /// `Contents/` with `Info.plist`, `MacOS/`, `Resources/` (macOS).
    case contents
    /// `Resources/` at the top (old-style bundles, GNUstep, macOS frameworks through their link).
    case resources
    /// `Support Files/` (the oldest CFBundle layout).
    case supportFiles = "support-files"
    /// `Info.plist` at the top (iOS).
    case flat
    /// A framework whose resources live only under `Versions/<current>/Resources` (GNUstep frameworks).
    case versionedFramework = "versioned-framework"
}

/// Where a bundle keeps its pieces, as paths relative to the bundle directory (`""` is the top).
public struct BundleLayout: Sendable, Equatable {
    public var kind: LayoutKind
    /// The directory holding the Info file.
    public var infoDirectory: FilePath
    /// Directories also searched for the Info file, after `infoDirectory`.
    public var alternateInfoDirectories: [FilePath]
    /// The resources directory: the global level of the bundle search pattern.
    public var resourcesDirectory: FilePath
    /// Where the executable is looked for, in order.
    public var executableDirectories: [FilePath]
    /// A second resources directory searched after the first: a framework whose top-level
    /// `Resources/` is a real directory and whose `Versions/Current` link was lost (zip files such
    /// as Python wheels drop symlinks) keeps the rest of its resources in its version directory.
    public var versionResourcesDirectory: FilePath? = nil

    /// Decides the layout from one listing of the bundle directory (rule 2): `Contents/`, then
    /// `Resources/`, then `Support Files/`, then a top-level Info file; a `.framework` looks at
    /// `Resources/` first and, failing that, at `Versions/`. `versions` is asked only for frameworks
    /// without a top-level `Resources/`, or whose `Resources/` is a real directory rather than the
    /// usual link into `Versions/Current` (then the version directory is searched after the top),
    /// and answers the current version's directory name.
    public static func detect(
        listing: Listing, lowercasedExtension: String?, currentVersion: () -> FileName?
    ) -> BundleLayout? {
        let isFramework = lowercasedExtension == "framework"
        let contents = listing.realName("Contents", where: \.isDirectoryLike)
        let resources = listing.realName("Resources", where: \.isDirectoryLike)
        let supportFiles = listing.realName("Support Files", where: \.isDirectoryLike)

        if isFramework, let resources {
            var layout = resourcesLayout(resources)
            if listing.entries[resources] == .directory, listing.realName("Versions", where: \.isDirectoryLike) != nil,
               let version = currentVersion() {
                let versionDirectory = FilePath("Versions").appending(version)
                layout.executableDirectories.append(versionDirectory)
                layout.versionResourcesDirectory = versionDirectory.appending("Resources")
            }
            return layout
        }
        if let contents {
            let top = FilePath(contents)
            return BundleLayout(
                kind: .contents, infoDirectory: top, alternateInfoDirectories: [],
                resourcesDirectory: top.appending("Resources"),
                executableDirectories: [top.appending("MacOS"), top])
        }
        if let resources {
            return resourcesLayout(resources)
        }
        if let supportFiles {
            let top = FilePath(supportFiles)
            return BundleLayout(
                kind: .supportFiles, infoDirectory: top, alternateInfoDirectories: [],
                resourcesDirectory: top.appending("Resources"),
                executableDirectories: [top, top.appending("MacOS"), .here])
        }
        if isFramework, listing.realName("Versions", where: \.isDirectoryLike) != nil, let version = currentVersion() {
            let versionDirectory = FilePath("Versions").appending(version)
            return BundleLayout(
                kind: .versionedFramework, infoDirectory: versionDirectory.appending("Resources"),
                alternateInfoDirectories: [versionDirectory],
                resourcesDirectory: versionDirectory.appending("Resources"),
                executableDirectories: [versionDirectory, .here])
        }
        if hasTopLevelInfo(listing) {
            return BundleLayout(
                kind: .flat, infoDirectory: .here, alternateInfoDirectories: [], resourcesDirectory: .here,
                executableDirectories: [.here])
        }
        return nil
    }

    private static func resourcesLayout(_ resources: FileName) -> BundleLayout {
        BundleLayout(
            kind: .resources, infoDirectory: FilePath(resources), alternateInfoDirectories: [.here],
            resourcesDirectory: FilePath(resources), executableDirectories: [.here, "Contents/MacOS"])
    }

    static func hasTopLevelInfo(_ listing: Listing) -> Bool {
        listing.realName("Info.plist", where: \.isFileLike) != nil
            || listing.realName("Info-gnustep.plist", where: \.isFileLike) != nil
    }

    /// The names an Info file may have in one directory, most authoritative first: GNUstep's
    /// `Info-gnustep.plist` wins over `Info.plist` in the same place (rule 6).
    public static let infoFileNames: [FileName] = ["Info-gnustep.plist", "Info.plist"]
}

/// Picks a framework's current version from a listing of its `Versions/` directory: the
/// `Current` link (or a directory of that name); a small plain file standing in for the link
/// (copies that lost their symlinks hold the target's name as text); else the only version, or
/// the highest by version order.
public enum FrameworkVersions {
    public static func current(
        versions: Listing, currentLinkTarget: String?, currentStandInText: String?
    ) -> (name: FileName, note: String?)? {
        let realVersions = versions.entries.filter { $0.value == .directory && $0.key != "Current" }.map(\.key)
        if let target = currentLinkTarget, isPlainVersionName(target), versions.entries[FileName(target)]?.isDirectoryLike == true {
            return (FileName(target), nil)
        }
        if versions.entries["Current"] == .directory { return ("Current", nil) }
        if let text = currentStandInText, isPlainVersionName(text), versions.entries[FileName(text)]?.isDirectoryLike == true {
            return (FileName(text), "Versions/Current is a plain file naming \"\(text)\", not a symlink; followed as one")
        }
        guard let highest = realVersions.max(by: { BundleVersion.compare($0.string, $1.string) == .orderedAscending }) else { return nil }
        let note = realVersions.count > 1 || versions.entries["Current"] != nil
            ? "Versions/Current does not lead to a version; used the highest, \(highest)" : nil
        return (highest, note)
    }

    /// A link target that names a sibling directory, not a path (`A`, `1.3`).
    static func isPlainVersionName(_ text: String) -> Bool {
        !text.isEmpty && !text.contains("/") && text != "." && text != ".." && text.utf8.count <= 255
    }
}
