import BundleModel
import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// Executables and debug symbols through the command line (SPEC.md, "Executables and debug
/// symbols"): the catalogue's slices, `query --uuid` and `--arch`, `symbols`.
@Suite struct BinaryCommandTests {
    let temporary = TemporaryDirectory("binary-commands")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    let intelUUID = MachOImage.uuid(seed: 21)
    let armUUID = MachOImage.uuid(seed: 22)
    let buildID: [UInt8] = MachOImage.uuid(seed: 23) + [9, 8, 7, 6]

    func bundlefs(_ arguments: String...) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue)
    }

    /// A universal app, its dSYM (the arm64 slice only), a GNUstep tool with an ELF executable.
    func writeTree() {
        var arm = MachOImage.arm64(uuid: armUUID)
        arm.signature = ("com.example.Builder", "TEAM000001")
        tree.machOApp("Build/Builder.app", identifier: "com.example.builder",
                      executable: MachOImage.universal([.x86_64(uuid: intelUUID), arm]))
        var dwarf = MachOImage.arm64(uuid: armUUID)
        dwarf.fileType = 10
        tree.dSYM("Build/Builder.app.dSYM", dwarfName: "Builder", dwarf: dwarf.bytes())
        tree.gnustepApp("GNUstep/Tool.app", info: ["NSExecutable": .string("Tool"), "CFBundleIdentifier": .string("org.example.tool")])
        tree.file("GNUstep/Tool.app/Tool", ELFImage(buildID: buildID).bytes(), mode: 0o755)
    }

    @Test func queryByUUIDAndArchitecture() throws {
        writeTree()
        #expect(try bundlefs("index", tree.root).status == 0)
        let canonical = BinarySlice.canonicalUUID(armUUID)
        for spelling in [canonical, canonical.lowercased(), canonical.replacingOccurrences(of: "-", with: "").lowercased()] {
            let found = try JSONValue.parse(try bundlefs("query", "--uuid", spelling, "--json").standardOutput)
            #expect(found.arrayValue?.compactMap { $0["path"]?.stringValue } == [tree.path("Build/Builder.app"), tree.path("Build/Builder.app.dSYM")],
                    "\(spelling)")
        }
        let intel = try JSONValue.parse(try bundlefs("query", "--uuid", BinarySlice.canonicalUUID(intelUUID), "--json").standardOutput)
        #expect(intel.arrayValue?.count == 1)
        let elf = try JSONValue.parse(try bundlefs("query", "--uuid", buildID.map { String(format: "%02X", $0) }.joined(), "--json").standardOutput)
        #expect(elf.arrayValue?.first?["identifier"] == .string("org.example.tool"))
        #expect(try JSONValue.parse(try bundlefs("query", "--arch", "x86_64", "--json").standardOutput).arrayValue?.count == 2) // Builder, Tool
        #expect(try JSONValue.parse(try bundlefs("query", "--arch", "arm64", "--kind", "dSYM", "--json").standardOutput).arrayValue?.count == 1)
        #expect(try bundlefs("query", "--uuid", BinarySlice.canonicalUUID(MachOImage.uuid(seed: 99))).standardOutput.isEmpty)
        let bad = try bundlefs("query", "--uuid", "not-a-uuid")
        #expect(bad.status == 1 && bad.standardError.contains("not a UUID"))

        let app = try #require(try JSONValue.parse(try bundlefs("query", "com.example.builder", "--json").standardOutput).arrayValue?.first)
        let binaries = try #require(app["binaries"]?.arrayValue)
        #expect(binaries.count == 2)
        let armSlice = try #require(binaries.first { $0["arch"] == .string("arm64") })
        #expect(armSlice["file"] == .string(tree.path("Build/Builder.app/Contents/MacOS/Builder")))
        #expect(armSlice["format"] == .string("mach-o") && armSlice["fileType"] == .string("execute"))
        #expect(armSlice["uuid"] == .string(canonical))
        #expect(armSlice["platform"] == .string("macos") && armSlice["minOS"] == .string("11.0") && armSlice["sdk"] == .string("14.2"))
        #expect(armSlice["signingIdentifier"] == .string("com.example.Builder") && armSlice["teamIdentifier"] == .string("TEAM000001"))
        #expect(binaries.first { $0["arch"] == .string("x86_64") }?["teamIdentifier"] == .null)
        let show = try JSONValue.parse(try bundlefs("show", tree.path("GNUstep/Tool.app"), "--json").standardOutput)
        #expect(show["binaries"]?.arrayValue?.first?["uuid"] == .string(buildID.map { String(format: "%02x", $0) }.joined()))
        #expect(show["binaries"]?.arrayValue?.first?["format"] == .string("elf"))
    }

    @Test func symbolsAnswersAsDebugSymbolsExpects() throws {
        writeTree()
        #expect(try bundlefs("index", tree.root).status == 0)
        let canonical = BinarySlice.canonicalUUID(armUUID)
        let unknown = BinarySlice.canonicalUUID(MachOImage.uuid(seed: 98))
        let result = try bundlefs("symbols", canonical.lowercased(), unknown, BinarySlice.canonicalUUID(intelUUID))
        #expect(result.status == 0, "\(result)")
        let plist = try PropertyListReader.read(Array(result.standardOutput.utf8))
        #expect(plist.format == .xml)
        let entries = try #require(plist.value.dictionary)
        #expect(Set(entries.keys) == [canonical, BinarySlice.canonicalUUID(intelUUID)])
        let arm = try #require(entries[canonical]?.dictionary)
        #expect(arm["DBGArchitecture"] == .string("arm64"))
        #expect(arm["DBGDSYMPath"] == .string(tree.path("Build/Builder.app.dSYM/Contents/Resources/DWARF/Builder")))
        #expect(arm["DBGSymbolRichExecutable"] == .string(tree.path("Build/Builder.app/Contents/MacOS/Builder")))
        let intel = try #require(entries[BinarySlice.canonicalUUID(intelUUID)]?.dictionary)
        #expect(intel["DBGDSYMPath"] == nil && intel["DBGArchitecture"] == .string("x86_64"))

        // A 16-byte ELF build-id (ld's --build-id=md5) keeps its hex spelling: it is no Mach-O UUID.
        let md5 = MachOImage.uuid(seed: 24)
        tree.gnustepApp("GNUstep/Md5.app", info: ["NSExecutable": .string("Md5"), "CFBundleIdentifier": .string("org.example.md5")])
        tree.file("GNUstep/Md5.app/Md5", ELFImage(buildID: md5).bytes(), mode: 0o755)
        #expect(try bundlefs("index", tree.root).status == 0)
        let hex = md5.map { String(format: "%02x", $0) }.joined()
        let elf = try bundlefs("symbols", BinarySlice.canonicalUUID(md5))
        #expect(try PropertyListReader.read(Array(elf.standardOutput.utf8)).value.dictionary?.keys.sorted() == [hex], "\(elf)")

        let none = try bundlefs("symbols", unknown)
        #expect(none.status == 1 && none.standardOutput.isEmpty)
        #expect(try bundlefs("symbols", "xyz").status == 1)
    }

    @Test func brokenExecutablesAreCataloguedWithTheirErrors() throws {
        var lying = MachOImage.arm64(uuid: armUUID).bytes()
        lying[16] = 0xFF; lying[17] = 0xFF; lying[18] = 0xFF; lying[19] = 0xFF // ncmds
        tree.machOApp("Broken.app", identifier: "com.example.broken", executable: lying)
        tree.macApp("Script.app", identifier: "com.example.script") // a shell script: no binaries, no error
        tree.dSYM("Empty.dSYM", dwarfName: "Empty", dwarf: Array("not mach-o".utf8))
        #expect(try bundlefs("index", tree.root).status == 0)
        let all = try #require(try JSONValue.parse(try bundlefs("query", "--json").standardOutput).arrayValue)
        func bundle(_ name: String) -> JSONValue? { all.first { $0["name"] == .string(name) } }
        let broken = try #require(bundle("Broken.app"))
        #expect(broken["errors"]?.arrayValue?.contains { $0.stringValue?.contains("load commands cannot fit") == true } == true, "\(broken)")
        #expect(broken["binaries"]?.arrayValue?.first?["arch"] == .string("arm64"))
        #expect(bundle("Script.app")?["errors"] == .array([]) && bundle("Script.app")?["binaries"] == .array([]))
        #expect(bundle("Empty.dSYM")?["errors"]?.arrayValue?.contains { $0.stringValue?.contains("is not a Mach-O file") == true } == true)
    }
}
