import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// `.bundlefs/symbols/native` and `unified` (SPEC.md, "Symbol stores for the tools people
    /// already run"): symbolicator's layouts of the images under SOURCE, live, without case, and no
    /// more readable than in SOURCE. Paths are spelled here by hand, not by `SymbolLayout`.
    @Suite struct SymbolStoreTests {
        let fixture = ViewFixture()
        // As the sample's Chess.app: a universal executable, and the dSYM of its arm64 slice.
        let intelUUID = MachOImage.uuid(seed: 61), armUUID = MachOImage.uuid(seed: 62)
        let secretUUID = MachOImage.uuid(seed: 63)
        let buildID = (0..<20).map { UInt8(0xA0 + $0) }
        var debugELF: ELFImage {
            var image = ELFImage(buildID: buildID)
            image.interpreter = "/a/debug/file/has/other/bytes"
            return image
        }

        init() {
            chmod(fixture.directory.path, 0o755)
            fixture.tree.machOApp("Builds/Tool.app", identifier: "org.example.tool",
                                  executable: MachOImage.universal([.x86_64(uuid: intelUUID), .arm64(uuid: armUUID)]))
            var dwarf = MachOImage.arm64(uuid: armUUID)
            dwarf.fileType = 10
            fixture.tree.dSYM("Builds/Tool.app.dSYM", dwarfName: "Tool", dwarf: dwarf.bytes())
            // A GNUstep tool with its build-id, and its debug file kept in a dSYM beside it.
            fixture.tree.gnustepApp("Builds/Md5.app", info: ["NSExecutable": .string("Md5"), "CFBundleIdentifier": .string("org.example.md5")])
            fixture.tree.file("Builds/Md5.app/Md5", ELFImage(buildID: buildID).bytes(), mode: 0o755)
            fixture.tree.dSYM("Builds/Md5.app.dSYM", dwarfName: "Md5", dwarf: debugELF.bytes())
            fixture.tree.machOApp("Private/Secret.app", identifier: "org.example.secret", executable: MachOImage.x86_64(uuid: secretUUID).bytes())
            chmod(fixture.tree.path("Private"), 0o700)
        }

        static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

        /// `native`'s Mach-O form: `XXXX/XXXX/XXXX/XXXX/XXXX/XXXXXXXXXXXX`, upper case.
        static func native(_ uuid: [UInt8]) -> String {
            let digits = Array(hex(uuid).uppercased())
            var groups: [String] = [], start = 0
            for width in [4, 4, 4, 4, 4, 12] {
                groups.append(String(digits[start..<start + width]))
                start += width
            }
            return groups.joined(separator: "/")
        }

        /// `native`'s build-id form (`nn/rest`) and `unified` (`xx/rest`), lower case.
        static func split(_ id: [UInt8]) -> String {
            let digits = hex(id)
            return digits.prefix(2) + "/" + digits.dropFirst(2)
        }

        @Test func theLayoutsServeEachImagesFilesByPathWithoutCase() throws {
            let view = try fixture.mount(languages: "en")
            let symbols = view.path(".bundlefs/symbols")
            let executable = try contents(fixture.tree.path("Builds/Tool.app/Contents/MacOS/Tool"))
            let dwarf = try contents(fixture.tree.path("Builds/Tool.app.dSYM/Contents/Resources/DWARF/Tool"))
            let elf = try contents(fixture.tree.path("Builds/Md5.app/Md5")), debug = try contents(fixture.tree.path("Builds/Md5.app.dSYM/Contents/Resources/DWARF/Md5"))
            #expect(elf != debug)
            #expect(try listing(view.path(".bundlefs")).contains("symbols"))
            #expect(try listing(symbols) == ["native", "unified"])

            // native: the Mach-O UUIDs grouped upper-case, the build-id split lower-case.
            let arm = Self.native(armUUID), intel = Self.native(intelUUID)
            #expect(try contents("\(symbols)/native/\(arm)") == dwarf)
            #expect(try contents("\(symbols)/native/\(arm).app") == executable)
            #expect(try contents("\(symbols)/native/\(intel).app") == executable)
            #expect(!FileManager.default.fileExists(atPath: "\(symbols)/native/\(intel)"))
            #expect(try contents("\(symbols)/native/\(Self.split(buildID))") == elf)
            #expect(try contents("\(symbols)/native/\(Self.split(buildID)).debug") == debug)
            let secret = Self.native(secretUUID)
            #expect(try listing("\(symbols)/native") == Set([arm, intel, secret].map { String($0.prefix(4)) } + [String(Self.hex(buildID).prefix(2))]).sorted())
            #expect(try listing("\(symbols)/native/\(FilePath(arm).parent.string)") == [String(arm.suffix(12)), String(arm.suffix(12)) + ".app"])
            #expect(try listing("\(symbols)/native/\(FilePath(intel).parent.string)") == [String(intel.suffix(12)) + ".app"])
            #expect(try listing("\(symbols)/native/\(Self.hex(buildID).prefix(2))") == [String(Self.hex(buildID).dropFirst(2)), Self.hex(buildID).dropFirst(2) + ".debug"])

            // unified: `xx/rest/debuginfo` and `executable`, lower-case, for both formats.
            let unifiedArm = Self.split(armUUID), unifiedELF = Self.split(buildID)
            #expect(try contents("\(symbols)/unified/\(unifiedArm)/debuginfo") == dwarf)
            #expect(try contents("\(symbols)/unified/\(unifiedArm)/executable") == executable)
            #expect(try contents("\(symbols)/unified/\(Self.split(intelUUID))/executable") == executable)
            #expect(try listing("\(symbols)/unified/\(Self.split(intelUUID))") == ["executable"])
            #expect(try contents("\(symbols)/unified/\(unifiedELF)/debuginfo") == debug)
            #expect(try contents("\(symbols)/unified/\(unifiedELF)/executable") == elf)
            #expect(try listing("\(symbols)/unified/\(unifiedArm)") == ["debuginfo", "executable"])
            #expect(try listing("\(symbols)/unified") == Set([armUUID, intelUUID, secretUUID, buildID].map { String(Self.hex($0).prefix(2)) }).sorted())

            // Without case: other spellings open the same file.
            let same = try FileStatus.of("\(symbols)/native/\(arm)")
            for path in ["native/\(arm.lowercased())", "native/\(arm.prefix(10).lowercased() + arm.dropFirst(10))", "unified/\(unifiedArm.uppercased())/DebugInfo"] {
                #expect(try contents("\(symbols)/\(path)") == dwarf, "\(path)")
                #expect(try FileStatus.of("\(symbols)/\(path)").inode == same.inode, "\(path)")
            }
            #expect(try contents("\(symbols)/native/\(arm.lowercased()).APP") == executable)
            #expect(try contents("\(symbols)/native/\(Self.split(buildID).uppercased()).DEBUG") == debug)
            #expect(try listing("\(symbols)/native/\(FilePath(arm).parent.string.lowercased())") == [String(arm.suffix(12)), String(arm.suffix(12)) + ".app"])

            // Unknown images and malformed paths name nothing.
            let unknown = MachOImage.uuid(seed: 99)
            for path in [
                "native/\(Self.native(unknown))", "native/\(Self.native(unknown)).app", "unified/\(Self.split(unknown))/debuginfo",
                "native/\(arm.dropLast())", "native/\(arm)x", "native/\(arm).dSYM", "native/\(arm.prefix(3))",
                "native/\(Self.split(armUUID))", "native/\(Self.split(armUUID)).debug", // a Mach-O UUID in the build-id form
                "native/\(intel)", "unified/\(unifiedArm)/symbols", "unified/\(unifiedArm.dropLast(2))/debuginfo",
                "unified/\(Self.hex(armUUID))/debuginfo", "unified/\(arm)", "native/\(Self.hex(buildID).prefix(4))", "NATIVE",
            ] {
                #expect(throws: (any Error).self, "\(path)") { try FileStatus.of("\(symbols)/\(path)") }
            }
            // unified/xx/rest for the arm64 UUID is a directory; its files are listed above.
            #expect(try FileStatus.of("\(symbols)/unified/\(unifiedArm)").type == .directory)

            // Live: a dSYM built for the Intel slice shows within a second, and goes when removed.
            var intelDWARF = MachOImage.x86_64(uuid: intelUUID)
            intelDWARF.fileType = 10
            fixture.tree.dSYM("Builds/Tool-x86_64.app.dSYM", dwarfName: "Tool", dwarf: intelDWARF.bytes())
            try poll(timeout: 60, "the new dSYM in native") { (try? contents("\(symbols)/native/\(intel)")) == intelDWARF.bytes() }
            #expect(try listing("\(symbols)/unified/\(Self.split(intelUUID))") == ["debuginfo", "executable"])
            fixture.tree.remove("Builds/Tool-x86_64.app.dSYM")
            try poll(timeout: 60, "the removed dSYM to go") { !FileManager.default.fileExists(atPath: "\(symbols)/native/\(intel)") }
            try poll(timeout: 60, "the removed dSYM's listing to go") { try listing("\(symbols)/unified/\(Self.split(intelUUID))") == ["executable"] }
            // An image removed takes its directories with it, even those the kernel holds.
            let secretDirectory = "\(symbols)/native/\(FilePath(Self.native(secretUUID)).parent.string)"
            #expect(try FileStatus.of(secretDirectory).type == .directory)
            fixture.tree.remove("Private/Secret.app")
            try poll(timeout: 60, "the removed image's directory to go") { (try? FileStatus.of(secretDirectory)) == nil }
            #expect(try !listing("\(symbols)/native").contains(String(Self.native(secretUUID).prefix(4))))
        }

        /// As the HTTP server and debuginfod answer: an ELF image no dSYM holds the debug file of
        /// is its own debug file (one not stripped); a Mach-O executable never is.
        @Test func anELFImageWithoutADSYMIsItsOwnDebugFile() throws {
            let unstripped = (0..<20).map { UInt8(0xC0 + $0) }
            fixture.tree.gnustepApp("Builds/Sum.app", info: ["NSExecutable": .string("Sum"), "CFBundleIdentifier": .string("org.example.sum")])
            fixture.tree.file("Builds/Sum.app/Sum", ELFImage(buildID: unstripped).bytes(), mode: 0o755)
            let view = try fixture.mount(languages: "en")
            let symbols = view.path(".bundlefs/symbols")
            let elf = try contents(fixture.tree.path("Builds/Sum.app/Sum"))
            #expect(try contents("\(symbols)/native/\(Self.split(unstripped)).debug") == elf)
            #expect(try contents("\(symbols)/unified/\(Self.split(unstripped))/debuginfo") == elf)
            #expect(try listing("\(symbols)/unified/\(Self.split(unstripped))") == ["debuginfo", "executable"])
            #expect(throws: (any Error).self) { try FileStatus.of("\(symbols)/unified/\(Self.split(intelUUID))/debuginfo") }
        }

        /// A first listing's entries come with their attributes (READDIRPLUS) from what the
        /// listing found: its directory's listing is made once, even for the read past its last
        /// entry, and each file found (opened and checked) once, not again for its attributes.
        @Test func aFirstListingMakesItsEntriesOnce() throws {
            let view = try fixture.mount(languages: "en")
            let directory = view.path(".bundlefs/symbols/unified/\(Self.split(buildID))")
            #expect(try FileStatus.of(directory).type == .directory)
            let before = try requestCounts(view)
            let names = try Descriptor.open(directory, flags: Descriptor.directoryNoFollow).listDirectory().map(\.name.string).sorted()
            #expect(names == ["debuginfo", "executable"])
            let after = try requestCounts(view)
            #expect(after["readdirplus"]! - before["readdirplus"]! >= 1)
            #expect(after["listing"]! - before["listing"]! == 1)
            #expect(after["symbolFileFind"]! - before["symbolFileFind"]! == 2)
        }

        /// A walk lists each subfolder next (`ls -R`): listing a layout's folder of eight
        /// subfolders or more makes their listings ahead, their files found (opened and checked)
        /// then, and the listing of each is that one, with no file looked for again on the way.
        @Test func aWalksNextListingsAreMadeAhead() throws {
            let ids = (0..<8).map { tool in [0xC3, UInt8(tool)] + (2..<20).map { UInt8($0) } }
            for (tool, id) in ids.enumerated() {
                fixture.tree.gnustepApp("Walk/Tool\(tool).app", info: ["NSExecutable": .string("Tool\(tool)"), "CFBundleIdentifier": .string("org.example.walk\(tool)")])
                fixture.tree.file("Walk/Tool\(tool).app/Tool\(tool)", ELFImage(buildID: id).bytes(), mode: 0o755)
            }
            let view = try fixture.mount(languages: "en")
            let counter = try DaemonCounter(view)
            let group = view.path(".bundlefs/symbols/unified/c3")
            let before = try counter.read()
            let subfolders = try listing(group)
            #expect(subfolders == ids.map { Self.hex(Array($0.dropFirst())) })
            try poll(timeout: 30, "the subfolders' listings made ahead") { try counter.read()["readAhead"]! - before["readAhead"]! >= ids.count }
            let ahead = try counter.read()
            for subfolder in subfolders { #expect(try listing("\(group)/\(subfolder)") == ["debuginfo", "executable"]) }
            let after = try counter.read()
            #expect(after["readAheadUsed"]! - ahead["readAheadUsed"]! == ids.count)
            #expect(after["listing"]! - ahead["listing"]! == ids.count)
            #expect(after["symbolFileFind"]! == ahead["symbolFileFind"]!, "a file was looked for again")
        }

        @Test func aSecondUserReadsOnlyWhatTheyCouldReadInSource() throws {
            let user = try SystemUser()
            let view = try fixture.mount(languages: "en", arguments: ["--allow-other"])
            let symbols = view.path(".bundlefs/symbols")
            let secret = Self.native(secretUUID)
            // The kernel shows one listing to every user: others search the layouts, as by-uuid.
            #expect(try user.canList(symbols))
            for directory in ["native", "unified", "native/\(secret.prefix(4))", "unified/\(Self.split(armUUID))"] {
                #expect(try !user.canList("\(symbols)/\(directory)"), "\(directory)")
                #expect(try listing("\(symbols)/\(directory)").count > 0, "\(directory)")
            }
            #expect(try !user.canRead(fixture.tree.path("Private/Secret.app/Contents/MacOS/Secret")))
            #expect(try !user.canRead("\(symbols)/native/\(secret).app"))
            #expect(try !user.canRead("\(symbols)/unified/\(Self.split(secretUUID))/executable"))
            #expect(try contents("\(symbols)/native/\(secret).app") == contents(fixture.tree.path("Private/Secret.app/Contents/MacOS/Secret")))
            // What SOURCE shares, the stores share.
            #expect(try user.canRead(fixture.tree.path("Builds/Tool.app/Contents/MacOS/Tool")))
            #expect(try user.canRead("\(symbols)/native/\(Self.native(armUUID))"))
            #expect(try user.canRead("\(symbols)/native/\(Self.native(armUUID).lowercased()).app"))
            #expect(try user.canRead("\(symbols)/unified/\(Self.split(buildID))/debuginfo"))
            // A file its owner keeps to itself in a shared bundle stays theirs.
            chmod(fixture.tree.path("Builds/Md5.app.dSYM/Contents/Resources/DWARF/Md5"), 0o600)
            #expect(try !user.canRead(fixture.tree.path("Builds/Md5.app.dSYM/Contents/Resources/DWARF/Md5")))
            try poll(timeout: 60, "the debug file's new mode") { try !user.canRead("\(symbols)/native/\(Self.split(buildID)).debug") }
            #expect(try !user.canRead("\(symbols)/unified/\(Self.split(buildID))/debuginfo"))
            #expect(try user.canRead("\(symbols)/unified/\(Self.split(buildID))/executable"))
        }
    }
}
