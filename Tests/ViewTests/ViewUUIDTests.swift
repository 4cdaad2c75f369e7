import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// `.bundlefs/by-uuid/UUID/` (SPEC.md, "Executables and debug symbols"): the dSYM's DWARF file,
    /// the executable and the DebugSymbols Info.plist, live, and no more readable than in SOURCE.
    @Suite struct UUIDTests {
        let fixture = ViewFixture()
        let appUUID = MachOImage.uuid(seed: 41)
        var appName: String { BinarySlice.canonicalUUID(appUUID) }

        init() {
            chmod(fixture.directory.path, 0o755)
            var dwarf = MachOImage.arm64(uuid: MachOImage.uuid(seed: 41))
            dwarf.fileType = 10
            fixture.tree.machOApp("Builds/Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 41)).bytes())
            fixture.tree.dSYM("Builds/Tool.app.dSYM", dwarfName: "Tool", dwarf: dwarf.bytes())
            fixture.tree.machOApp("Private/Secret.app", identifier: "org.example.secret", executable: MachOImage.x86_64(uuid: MachOImage.uuid(seed: 42)).bytes())
            fixture.tree.gnustepApp("Builds/Md5.app", info: ["NSExecutable": .string("Md5"), "CFBundleIdentifier": .string("org.example.md5")])
            fixture.tree.file("Builds/Md5.app/Md5", ELFImage(buildID: MachOImage.uuid(seed: 44)).bytes(), mode: 0o755)
            chmod(fixture.tree.path("Private"), 0o700)
        }

        @Test func byUUIDServesTheDSYMTheExecutableAndTheirPlist() throws {
            let view = try fixture.mount(languages: "en")
            #expect(try listing(view.path(".bundlefs")).contains("by-uuid"))
            let secretName = BinarySlice.canonicalUUID(MachOImage.uuid(seed: 42))
            // A 16-byte ELF build-id keeps its hex spelling (as `query` and `symbols` give it).
            let elfName = MachOImage.uuid(seed: 44).map { String(format: "%02x", $0) }.joined()
            #expect(try listing(view.path(".bundlefs/by-uuid")) == [appName, secretName, elfName].sorted())
            #expect(try listing(view.path(".bundlefs/by-uuid/\(elfName)")) == ["Info.plist", "executable"])
            #expect(throws: (any Error).self) { try FileStatus.of(view.path(".bundlefs/by-uuid/\(BinarySlice.canonicalUUID(MachOImage.uuid(seed: 44)))")) }
            #expect(try listing(view.path(".bundlefs/by-uuid/\(appName)")) == ["Info.plist", "dSYM", "executable"])
            #expect(try contents(view.path(".bundlefs/by-uuid/\(appName)/dSYM")) == contents(fixture.tree.path("Builds/Tool.app.dSYM/Contents/Resources/DWARF/Tool")))
            #expect(try contents(view.path(".bundlefs/by-uuid/\(appName)/executable")) == contents(fixture.tree.path("Builds/Tool.app/Contents/MacOS/Tool")))
            let plist = try PropertyListReader.read(contents(view.path(".bundlefs/by-uuid/\(appName)/Info.plist"))).value
            #expect(plist.dictionary?[appName]?.dictionary?["DBGDSYMPath"] == .string(fixture.tree.path("Builds/Tool.app.dSYM/Contents/Resources/DWARF/Tool")))
            // Another spelling of the UUID is not a second directory.
            #expect(throws: (any Error).self) { try FileStatus.of(view.path(".bundlefs/by-uuid/\(appName.lowercased())")) }
            // A secret app's UUID: only dSYM-less.
            #expect(try listing(view.path(".bundlefs/by-uuid/\(secretName)")) == ["Info.plist", "executable"])

            // Live: a rebuilt executable takes its new UUID; the old one goes once no slice has it.
            let newUUID = BinarySlice.canonicalUUID(MachOImage.uuid(seed: 43))
            fixture.tree.file("Builds/Tool.app/Contents/MacOS/Tool", MachOImage.arm64(uuid: MachOImage.uuid(seed: 43)).bytes(), mode: 0o755)
            try poll(timeout: 60, "the rebuilt executable's UUID") { try listing(view.path(".bundlefs/by-uuid")).contains(newUUID) }
            #expect(try listing(view.path(".bundlefs/by-uuid/\(appName)")) == ["Info.plist", "dSYM"])
            fixture.tree.remove("Builds/Tool.app.dSYM")
            try poll(timeout: 60, "the removed dSYM's UUID to go") { try !listing(view.path(".bundlefs/by-uuid")).contains(appName) }
        }

        @Test func aSecondUserSeesNoUUIDTheyCouldNotFind() throws {
            let user = try SystemUser()
            let view = try fixture.mount(languages: "en", arguments: ["--allow-other"])
            // The kernel shows one listing to every user, so others may only search by-uuid.
            #expect(try !user.canList(view.path(".bundlefs/by-uuid")))
            let secretName = BinarySlice.canonicalUUID(MachOImage.uuid(seed: 42))
            #expect(try !user.canList(view.path(".bundlefs/by-uuid/\(secretName)")))
            #expect(try !user.canRead(view.path(".bundlefs/by-uuid/\(secretName)/Info.plist")))
            #expect(try !user.canRead(view.path(".bundlefs/by-uuid/\(secretName)/executable")))
            // What SOURCE shares, by-uuid shares, whatever else is there.
            #expect(try user.canRead(fixture.tree.path("Builds/Tool.app/Contents/MacOS/Tool")))
            #expect(try user.canRead(view.path(".bundlefs/by-uuid/\(appName)/executable")))
            #expect(try user.canRead(view.path(".bundlefs/by-uuid/\(appName)/Info.plist")))
            #expect(try user.canList(view.path(".bundlefs/by-uuid/\(appName)")))
            // The mount's owner lists it.
            #expect(try listing(view.path(".bundlefs/by-uuid")).contains(secretName))
        }
    }
}
