import BundleModel
import Codecs
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The benchmark tree of SPEC.md: about 20,000 bundles in 100,000 directories holding 300,000
/// files. Each bundle has five directories and fifteen files (an Info.plist, InfoPlist.strings,
/// Localizable.strings and, for apps, the icon the Info file names, with real contents; the rest
/// empty), in groups of 100. One bundle in ten is
/// a GNUstep-style app, one in ten a framework with versioned links. Every executable has real
/// headers (rule 23): macOS apps are universal (x86_64 and signed arm64) or thin, frameworks thin,
/// GNUstep apps ELF with a build-id; each slice's UUID comes from `uuid(_:slice:)`. macOS apps
/// claim and declare types (`launchServicesKeys(_:)`); GNUstep apps claim nothing (rule 29 reads
/// CFBundleDocumentTypes, not GNUstep's NSTypes).
///
/// `applicationsOnly` makes every bundle a macOS app holding only its Info.plist, PkgInfo and
/// executable, with the same claims: the catalogue `open-with` answers from, cheaply.
public struct BenchmarkTree: Sendable {
    public let root: String
    public let bundles: Int
    public let applicationsOnly: Bool
    /// Bumped whenever the layout changes, so a cached tree from an older generator is rebuilt.
    public static let generatorVersion = "7"

    public init(root: String, bundles: Int = 20_000, applicationsOnly: Bool = false) {
        self.root = root
        self.bundles = bundles
        self.applicationsOnly = applicationsOnly
    }

    public static func identifier(_ index: Int) -> String { "com.example.bench.app\(index)" }

    /// The UUID of a bundle's executable slice (0, or 1 for a universal app's arm64 slice).
    public static func uuid(_ index: Int, slice: Int = 0) -> [UInt8] { MachOImage.uuid(seed: index * 2 + slice) }

    /// A bundle's executable: what a build machine's would hold in its headers.
    static func executable(_ index: Int) -> [UInt8] {
        switch index % 10 {
        case 3: return ELFImage(buildID: uuid(index) + [0, 0, 0, 0]).bytes()
        case 7: return MachOImage.arm64(uuid: uuid(index)).bytes()
        default:
            // Half universal (x86_64 first, so slice 0 is `uuid(index)`), half thin arm64.
            let universal = index % 2 == 0
            var arm = MachOImage.arm64(uuid: uuid(index, slice: universal ? 1 : 0))
            arm.signature = (identifier(index), "BENCHTEAM1")
            return universal ? MachOImage.universal([.x86_64(uuid: uuid(index)), arm], alignment: 512) : arm.bytes()
        }
    }

    var marker: String { FilePath(root).appending(".bundlefs-bench-tree").string }
    var markerText: String { "\(Self.generatorVersion) \(bundles)\(applicationsOnly ? " applications" : "")\n" }

    /// Whether a complete tree of this size and generator version is already there.
    public var isComplete: Bool {
        guard let bytes = try? ScanRoot(path: FilePath(root)).readRegularFile(".bundlefs-bench-tree", limit: 64).bytes else { return false }
        return String(decoding: bytes, as: UTF8.self) == markerText
    }

    /// Writes the tree (removing whatever was there).
    public func generate() {
        removeTree(root)
        let writer = TreeWriter(root: root)
        let localizable = StringsEncoder.encode((0..<12).map { ("Key\($0)", "Value \($0)") }, as: .utf16LittleEndianWithBOM)
        // Every app names a real (small) icon, so the index's cost of finding icons is measured.
        let icon = Icons(
            icns: IconFixtures.icns([("ic07", IconFixtures.png(IconFixtures.disc(side: 16, red: 200, green: 40, blue: 40)))]),
            tiff: IconFixtures.tiff([IconFixtures.disc(side: 16, red: 40, green: 40, blue: 200)]))
        for index in 0..<bundles {
            let group = "Group\(index / 100)"
            if applicationsOnly {
                bareApp(writer, group: group, index: index)
                continue
            }
            switch index % 10 {
            case 3: gnustepApp(writer, group: group, index: index, localizable: localizable, icon: icon)
            case 7: framework(writer, group: group, index: index)
            default: macApp(writer, group: group, index: index, localizable: localizable, icon: icon)
            }
        }
        writer.text(".bundlefs-bench-tree", markerText)
    }

    private struct Icons {
        var icns: [UInt8]
        var tiff: [UInt8]
    }

    private func macApp(_ writer: TreeWriter, group: String, index: Int, localizable: [UInt8], icon: Icons) {
        let app = "\(group)/App\(index).app"
        for directory in ["\(app)/Contents/MacOS", "\(app)/Contents/Resources/en.lproj"] { writer.directory(directory) }
        writer.plist("\(app)/Contents/Info.plist", info(index, executable: "App\(index)", extra: [
            "CFBundleDisplayName": .string("App\(index)"), "CFBundleDevelopmentRegion": .string("en"),
            "LSMinimumSystemVersion": .string("10.15"), "NSHumanReadableCopyright": .string("© 2026 Example"),
            "CFBundleIconFile": .string("AppIcon"),
        ].merging(Self.launchServicesKeys(index)) { $1 }))
        writer.text("\(app)/Contents/PkgInfo", "APPL????")
        writer.file("\(app)/Contents/MacOS/App\(index)", Self.executable(index), mode: 0o755)
        writer.file("\(app)/Contents/Resources/AppIcon.icns", icon.icns)
        for name in ["Assets.car", "MainMenu.nib", "1.png", "2.png", "3.png", "4.png", "5.png", "6.png"] {
            writer.file("\(app)/Contents/Resources/\(name)", [])
        }
        writer.strings("\(app)/Contents/Resources/en.lproj/InfoPlist.strings", ["CFBundleDisplayName": "App \(index)"], as: .utf16LittleEndianWithBOM)
        writer.file("\(app)/Contents/Resources/en.lproj/Localizable.strings", localizable)
        writer.file("\(app)/Contents/Resources/en.lproj/Credits.rtf", [])
    }

    private func bareApp(_ writer: TreeWriter, group: String, index: Int) {
        let app = "\(group)/App\(index).app"
        writer.plist("\(app)/Contents/Info.plist", info(index, executable: "App\(index)", extra: Self.launchServicesKeys(index)))
        writer.text("\(app)/Contents/PkgInfo", "APPL????")
        writer.file("\(app)/Contents/MacOS/App\(index)", MachOImage.arm64(uuid: Self.uuid(index)).bytes(), mode: 0o755)
    }

    private func gnustepApp(_ writer: TreeWriter, group: String, index: Int, localizable: [UInt8], icon: Icons) {
        let app = "\(group)/Tool\(index).app"
        for directory in ["\(app)/Resources/English.lproj", "\(app)/Resources/German.lproj", "\(app)/Resources/Images"] {
            writer.directory(directory)
        }
        writer.plist("\(app)/Resources/Info-gnustep.plist", info(index, executable: "Tool\(index)", extra: [
            "NSExecutable": .string("Tool\(index)"), "ApplicationName": .string("Tool\(index)"), "NSIcon": .string("Tool.tiff"),
        ]), format: .openStep)
        writer.file("\(app)/Tool\(index)", Self.executable(index), mode: 0o755)
        writer.text("\(app)/stamp.make", "stamp\n")
        writer.file("\(app)/Resources/Tool.tiff", icon.tiff)
        for name in ["Images/a.tiff", "Images/b.tiff", "Images/c.tiff", "Images/d.tiff", "Images/e.tiff", "Images/f.tiff"] {
            writer.file("\(app)/Resources/\(name)", [])
        }
        for lproj in ["English", "German"] {
            writer.file("\(app)/Resources/\(lproj).lproj/Localizable.strings", localizable)
            writer.file("\(app)/Resources/\(lproj).lproj/Tool.gorm", [])
        }
    }

    private func framework(_ writer: TreeWriter, group: String, index: Int) {
        let framework = "\(group)/Kit\(index).framework"
        for directory in ["\(framework)/Versions/A/Resources/en.lproj", "\(framework)/Versions/A/Headers"] { writer.directory(directory) }
        writer.plist("\(framework)/Versions/A/Resources/Info.plist", info(index, executable: "Kit\(index)", extra: [
            "CFBundlePackageType": .string("FMWK"),
        ]), format: .binary)
        writer.file("\(framework)/Versions/A/Kit\(index)", Self.executable(index), mode: 0o755)
        for name in ["Kit.h", "Types.h", "Errors.h", "Private.h", "Public.h"] { writer.file("\(framework)/Versions/A/Headers/\(name)", []) }
        writer.file("\(framework)/Versions/A/Resources/en.lproj/InfoPlist.strings", StringsEncoder.encode([("CFBundleName", "Kit \(index)")], as: .utf8))
        writer.file("\(framework)/Versions/A/Resources/en.lproj/Localizable.strings", [])
        writer.symlink("\(framework)/Versions/Current", to: "A")
        writer.symlink("\(framework)/Resources", to: "Versions/Current/Resources")
        writer.symlink("\(framework)/Headers", to: "Versions/Current/Headers")
        writer.symlink("\(framework)/Kit\(index)", to: "Versions/Current/Kit\(index)")
    }

    private func info(_ index: Int, executable: String, extra: [String: PlistValue]) -> PlistValue {
        var dictionary: [String: PlistValue] = [
            "CFBundleIdentifier": .string(Self.identifier(index)), "CFBundleName": .string(executable),
            "CFBundleExecutable": .string(executable), "CFBundlePackageType": .string("APPL"),
            "CFBundleVersion": .string("\(index % 9 + 1).\(index % 7).\(index % 5)"),
            "CFBundleShortVersionString": .string("\(index % 9 + 1).\(index % 7)"), "CFBundleInfoDictionaryVersion": .string("6.0"),
        ]
        for (key, value) in extra { dictionary[key] = value }
        return .dictionary(dictionary)
    }
}
