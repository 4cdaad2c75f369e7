import BundleModel
import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// `query --runs-on`, `--plugin-type` and `--extension-point` (BUNDLES.md rules 31 and 32) on
/// executables our Mach-O writer makes.
@Suite struct LaunchQueryCommandTests {
    let temporary = TemporaryDirectory("launch-query")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }
    static let plugInType = "5E2D9680-5022-40FA-B806-43349622E5B9"

    static func image(_ image: MachOImage, platform: UInt32 = 1, minOS: (UInt32, UInt32)) -> MachOImage {
        var image = image
        image.buildVersion = (platform, MachOImage.version(minOS.0, minOS.1), MachOImage.version(15, 0))
        return image
    }

    func app(_ name: String, info: [String: PlistValue] = [:], _ images: [MachOImage]) {
        tree.macApp("Apps/\(name).app", identifier: "org.example.\(name.lowercased())", info: info)
        let bytes = images.count == 1 ? images[0].bytes() : MachOImage.universal(images)
        tree.file("Apps/\(name).app/Contents/MacOS/\(name)", bytes, mode: 0o755)
    }

    func writeTree() {
        var arm64e = MachOImage.arm64()
        arm64e.cpuSubtype = 2
        app("Universal", [Self.image(.x86_64(), minOS: (10, 13)), Self.image(.arm64(), minOS: (11, 0))])
        app("IntelOnly", [Self.image(.x86_64(), minOS: (10, 15))])
        app("ArmE", [Self.image(arm64e, minOS: (12, 0))])
        app("Sequoia", info: ["LSMinimumSystemVersion": .string("15.0")], [Self.image(.arm64(), minOS: (11, 0))])
        app("ByArch", info: ["LSMinimumSystemVersionByArchitecture": .dictionary(["arm64": .string("13.0")])],
            [Self.image(.x86_64(), minOS: (11, 0)), Self.image(.arm64(), minOS: (11, 0))])
        app("Phone", info: ["MinimumOSVersion": .string("17.0")], [Self.image(.arm64(), platform: 2, minOS: (17, 0))])
        tree.plist("PlugIns/Importer.plugin/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.importer"), "CFBundlePackageType": .string("BNDL"),
            "CFPlugInTypes": .dictionary([Self.plugInType: .array([.string("0B3A1C5E-0000-0000-0000-000000000000")])]),
        ]))
        tree.plist("Apps/Universal.app/Contents/PlugIns/Share.appex/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.universal.share"), "CFBundlePackageType": .string("XPC!"),
            "NSExtension": .dictionary(["NSExtensionPointIdentifier": .string("com.apple.share-services")]),
        ]))
    }

    func names(_ arguments: String...) throws -> [String] {
        let result = try Subprocess.bundlefs(["query"] + arguments + ["--json"], catalogue: catalogue)
        let found = try JSONValue.parse(result.standardOutput).arrayValue ?? []
        // No match is status 1, with `[]` still printed.
        #expect(result.status == (found.isEmpty ? 1 : 0), "\(arguments): \(result.standardError)")
        return found.compactMap { $0["path"]?.stringValue.map { ($0 as NSString).lastPathComponent } }
    }

    @Test func whereApplicationsRun() throws {
        writeTree()
        #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue).status == 0)
        // An arm64 Mac runs arm64e slices too; x86_64-only apps need translation, which is not native.
        #expect(try names("--runs-on", "macos/arm64") == ["ArmE.app", "ByArch.app", "Sequoia.app", "Universal.app"])
        #expect(try names("--runs-on", "macos:11.0/arm64") == ["Universal.app"])
        #expect(try names("--runs-on", "macos:13.0/arm64") == ["ArmE.app", "ByArch.app", "Universal.app"])
        // ByArch's minimum is for arm64 alone; its x86_64 slice needs only its own 11.0.
        #expect(try names("--runs-on", "macos:12.0/x86_64") == ["ByArch.app", "IntelOnly.app", "Universal.app"])
        #expect(try names("--runs-on", "macos:10.14/x86_64") == ["Universal.app"])
        #expect(try names("--runs-on", "ios:17.0") == ["Phone.app"])
        #expect(try names("--runs-on", "ios:16.4").isEmpty)
        #expect(try names("--runs-on", "macos:15.0", "--kind", "application") == ["ArmE.app", "ByArch.app", "IntelOnly.app", "Sequoia.app", "Universal.app"])
        let bad = try Subprocess.bundlefs(["query", "--runs-on", "macos:fifteen"], catalogue: catalogue)
        #expect(bad.status == 1 && bad.standardError.contains("PLATFORM[:VERSION][/ARCH]"))
    }

    @Test func plugInTypesAndExtensionPoints() throws {
        writeTree()
        #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue).status == 0)
        for spelling in [Self.plugInType, Self.plugInType.lowercased(), Self.plugInType.replacingOccurrences(of: "-", with: "")] {
            #expect(try names("--plugin-type", spelling) == ["Importer.plugin"], "\(spelling)")
        }
        #expect(try names("--plugin-type", "0B3A1C5E-0000-0000-0000-000000000000").isEmpty)
        #expect(try names("--extension-point", "com.apple.share-services") == ["Share.appex"])
        #expect(try names("--extension-point", "com.apple.widgetkit-extension").isEmpty)
        #expect(try Subprocess.bundlefs(["query", "--plugin-type", "nope"], catalogue: catalogue).status == 1)
    }
}
