public import Codecs
public import SystemCalls

/// What reading one bundle or package from disk finds, independent of the user's languages: the
/// inspector produces it, the catalogue stores it whole and gives it back whole. Language-dependent
/// values (display name, localized Info values) are derived on demand.
public struct BundleRecord: Sendable, Equatable {
    /// Where the catalogue files the record: the bundle's absolute path on disk or, for a bundle
    /// inside an archive, the archive's path joined with `member`, which names nothing on disk.
    public var key: FilePath
    /// The bundle's absolute path on disk; nil inside an archive, whose bundles are not files.
    public var diskPath: FilePath? { archive == nil ? key : nil }
    /// The real name: the key's last component.
    public var name: FileName { key.lastComponent }
    public var packageReasons: PackageReasons = []
    public var isPackage: Bool { !packageReasons.isEmpty }
    public var isBundle = false
    public var layout: LayoutKind?
    public var kind = BundleKind.document
    /// The Info file, relative to the bundle (`Contents/Info.plist`).
    public var infoFile: FilePath?
    public var infoFormat: PlistFormat?
    /// The raw Info dictionary; empty when there is none or it could not be read.
    public var info: [String: PlistValue] = [:]
    /// The resources directory relative to the bundle (`Contents/Resources`), when a bundle.
    public var resourcesDirectory: FilePath?
    /// A framework's version `Resources/`, searched after `resourcesDirectory` when its
    /// `Versions/Current` link was lost (see `BundleLayout.versionResourcesDirectory`).
    public var versionResourcesDirectory: FilePath?
    /// The resources directories the bundle search pattern runs over, in order.
    public var resourceSearchDirectories: [FilePath] {
        (resourcesDirectory.map { [$0] } ?? []) + (versionResourcesDirectory.map { [$0] } ?? [])
    }

    /// The directories the bundle search pattern looks in (rule 12), in order, relative to the
    /// bundle: each resources directory's global level (localization nil), then its chosen lprojs
    /// for `languages`, `Base.lproj` right after the first.
    public func searchLevels(for languages: [LanguageTag]) -> [(directory: FilePath, localization: String?)] {
        let lprojs = localizationChooser.lprojSearchOrder(for: languages)
        return resourceSearchDirectories.flatMap { resources in
            [(resources, nil)] + lprojs.map { (resources.appending(FileName($0 + ".lproj")), $0) }
        }
    }
    /// Real lproj names, without `.lproj`, sorted.
    public var localizations: [String] = []
    /// InfoPlist.strings tables by lproj name; `""` is a global `Resources/InfoPlist.strings`.
    /// A file that exists but could not be read is present with no entries.
    public var infoPlistStrings: [FileName: [String: String]] = [:]
    /// The executable, when it exists: an absolute path, or a key inside an archive as `key` is.
    public var executable: FilePath?
    /// What the executable's headers say, and in a dSYM its DWARF files': one entry per Mach-O
    /// slice or ELF file (rule 24), in the order read.
    public var binaries: [BinarySlice] = []
    /// The icon file rule 21 finds (`.icns`, `.tiff`, `.png`), when it exists, spelled as `executable` is.
    public var icon: FilePath?
    public var documentTypes: [DocumentType] = []
    public var typeDeclarations: [TypeDeclaration] = []
    /// What a Time Machine backup's files say (rule 34); nil for anything else.
    public var backup: TimeMachineBackup?
    /// The Finder flags word, when Finder info was found.
    public var finderFlags: UInt16?
    public var finderInfoSource: FinderInfoSource?
    /// Problems that make the bundle unsound, and lesser ones, as one-line messages.
    public var errors: [String] = []
    public var warnings: [String] = []
    /// For a bundle inside an archive (rule 26): the archive's absolute path, and the bundle's
    /// path inside it (`key` joins them).
    public var archive: FilePath?
    public var member: FilePath?
    /// For a bundle in an installer's payload (rule 33): the component that installs it and where.
    public var installation: Installation?

    public struct Installation: Sendable, Equatable, Hashable {
        /// The component's identifier (`PackageInfo`'s `identifier`), when it has one.
        public var component: String?
        /// The install location joined with the bundle's path in the payload.
        public var installsTo: FilePath

        public init(component: String?, installsTo: FilePath) {
            self.component = component
            self.installsTo = installsTo
        }
    }
    /// The files and directories this record was read from, to notice later changes cheaply.
    public var stamps: [FileStamp] = []

    public init(key: FilePath) { self.key = key }

    public var infoDictionary: InfoDictionary { InfoDictionary(info) }
    public var identifier: String? { infoDictionary.identifier }
    public var version: String? { infoDictionary.version }
    public var shortVersion: String? { infoDictionary.shortVersion }
    public var developmentRegion: String? { infoDictionary.developmentRegion }
    public var numericVersion: UInt32 { version.map(BundleVersion.packed) ?? 0 }
    public var lowercasedExtension: String? { name.lowercasedExtension }
    public var isApplication: Bool { kind == .application }
    /// The Finder's hidden-extension flag (`fi[9] & 0x10`, rule 17).
    public var extensionHidden: Bool { FinderInfo.isExtensionHidden(finderFlags) }

    /// The chooser for this bundle's localizations (rules 10 and 11).
    public var localizationChooser: LocalizationChooser {
        LocalizationChooser(
            lprojNames: localizations, declaredLocalizations: infoDictionary.declaredLocalizations,
            developmentRegion: developmentRegion)
    }

    /// The InfoPlist.strings table the bundle search pattern picks (rule 12): the global one, else
    /// the first chosen localization that has the file.
    public func chosenInfoPlistStrings(for languages: [LanguageTag]) -> [String: String]? {
        chosenInfoPlistStringsLocalization(for: languages).flatMap { infoPlistStrings[$0] }
    }

    /// Which InfoPlist.strings that is: `""` for the global one, else the lproj's name.
    public func chosenInfoPlistStringsLocalization(for languages: [LanguageTag]) -> FileName? {
        if infoPlistStrings[""] != nil { return "" }
        return localizationChooser.lprojSearchOrder(for: languages).lazy.map { FileName($0) }.first { infoPlistStrings[$0] != nil }
    }

    /// That file, relative to the bundle.
    public func chosenInfoPlistStringsFile(for languages: [LanguageTag]) -> FilePath? {
        guard let localization = chosenInfoPlistStringsLocalization(for: languages) else { return nil }
        let candidates = resourceSearchDirectories.map { resources in
            (localization.isEmpty ? resources : resources.appending(FileName(localization.string + ".lproj"))).appending("InfoPlist.strings")
        }
        // The one read is the one stamped; a file that could not be read has no stamp.
        return candidates.first { candidate in stamps.contains { $0.path == candidate } } ?? candidates.first
    }

    /// Rule 13: the localized value of an Info key, else its Info.plist value.
    public func localizedString(_ key: String, for languages: [LanguageTag]) -> String? {
        chosenInfoPlistStrings(for: languages)?[key] ?? infoDictionary.string(key)
    }

    /// The name the Finder shows for the user's languages (rules 16 and 17), not yet made safe
    /// for a file system (see `DisplayNames.sanitized`).
    public func displayName(for languages: [LanguageTag]) -> String {
        DisplayNames.forItem(
            realName: name.string, nameInInfo: infoDictionary.nameForDisplay,
            localizedDisplayName: localizedString("CFBundleDisplayName", for: languages),
            extensionHidden: extensionHidden)
    }
}

/// What a file looked like when it was read: enough to tell cheaply whether it changed since.
public struct FileStamp: Sendable, Hashable {
    /// Relative to the bundle directory.
    public var path: FilePath
    public var changeTime: Int64
    public var size: Int64
    public var inode: UInt64

    public init(path: FilePath, changeTime: Int64, size: Int64, inode: UInt64) {
        self.path = path
        self.changeTime = changeTime
        self.size = size
        self.inode = inode
    }
}
