import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Rules 23 to 25 on files our writer makes, each first checked by the toolchain's `llvm-objdump`
/// (or binutils' `readelf`), so the writer and the reader cannot agree on a mistake.
@Suite struct BinaryHeaderTests {
    let directory = TemporaryDirectory("binaries")

    func read(_ bytes: [UInt8], file: String = "App") -> BinaryReader.Result {
        BinaryReader.read(MemoryByteSource(bytes), file: FilePath(file))
    }

    /// What `llvm-objdump --macho --private-headers` says of each slice, by architecture.
    func objdump(_ bytes: [UInt8], name: String) throws -> [String: ObjdumpSlice] {
        let path = directory.appending(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let text = try Toolchain.output("llvm-objdump", ["--macho", "--private-headers", "--arch=all", path])
        return ObjdumpSlice.parse(text)
    }

    @Test func aSignedThinArm64ExecutableReadsAsObjdumpSeesIt() throws {
        var image = MachOImage.arm64(uuid: MachOImage.uuid(seed: 1))
        image.signature = ("com.example.App", "ABCDE12345")
        let bytes = image.bytes()
        let seen = try #require(try objdump(bytes, name: "thin").values.first)
        let result = read(bytes)
        #expect(result.errors.isEmpty)
        let slice = try #require(result.slices.first)
        #expect(result.slices.count == 1)
        #expect(slice.format == .machO)
        #expect(slice.arch == "arm64" && seen.cpu == "ARM64")
        #expect(slice.fileType == "execute" && seen.fileType == "EXECUTE")
        #expect(slice.uuid == seen.uuid && seen.uuid != nil)
        #expect(slice.platform == seen.platform && slice.platform == "macos")
        #expect(slice.minOS == seen.minOS && slice.minOS == "11.0")
        #expect(slice.sdk == seen.sdk && slice.sdk == "14.2")
        #expect(seen.hasCodeSignature)
        #expect(slice.signature == .read)
        #expect(slice.signingIdentifier == "com.example.App")
        #expect(slice.teamIdentifier == "ABCDE12345")
    }

    @Test func aUniversalFileHasOneSlicePerArchitecture() throws {
        var intel = MachOImage.x86_64(uuid: MachOImage.uuid(seed: 2))
        intel.versionMin = (0x24, MachOImage.version(10, 13, 4), MachOImage.version(13, 0))
        intel.buildVersion = nil
        var arm = MachOImage.arm64(uuid: MachOImage.uuid(seed: 3))
        arm.signature = ("com.example.Fat", nil)
        for fat64 in [false, true] {
            let bytes = MachOImage.universal([intel, arm], fat64: fat64)
            let seen = try objdump(bytes, name: "fat\(fat64)")
            let result = read(bytes)
            #expect(result.errors.isEmpty)
            #expect(result.slices.map(\.arch) == ["x86_64", "arm64"])
            for slice in result.slices {
                let expected = try #require(seen[slice.arch], "objdump shows \(seen.keys.sorted())")
                #expect(slice.uuid == expected.uuid && expected.uuid != nil)
                #expect(slice.platform == expected.platform && slice.minOS == expected.minOS && slice.sdk == expected.sdk)
            }
            #expect(result.slices[0].minOS == "10.13.4" && result.slices[0].signature == .none)
            #expect(result.slices[1].signingIdentifier == "com.example.Fat" && result.slices[1].teamIdentifier == nil)
            #expect(Set(result.slices.compactMap(\.uuid)).count == 2)
        }
    }

    @Test func thirtyTwoBitBigEndianPowerPC() throws {
        var image = MachOImage(cpuType: 18, cpuSubtype: 0)
        image.is64 = false
        image.bigEndian = true
        image.fileType = 8
        image.uuid = MachOImage.uuid(seed: 4)
        image.versionMin = (0x24, MachOImage.version(10, 4), MachOImage.version(10, 5))
        let bytes = image.bytes()
        let seen = try #require(try objdump(bytes, name: "ppc").values.first)
        let slice = try #require(read(bytes).slices.first)
        #expect(slice.arch == "ppc" && seen.cpu == "PPC")
        #expect(slice.fileType == "bundle" && seen.fileType == "BUNDLE")
        #expect(slice.uuid == seen.uuid && slice.minOS == seen.minOS && slice.minOS == "10.4")
    }

    @Test func clangObjectFilesAreReadLikeObjdumpReadsThem() throws {
        guard let clang = Toolchain.tool("clang") else { throw Toolchain.ToolMissing(name: "clang") }
        let source = directory.appending("unit.c")
        try "int answer(void) { return 42; }\n".write(toFile: source, atomically: false, encoding: .utf8)
        for (target, arch, platform, minOS) in [("arm64-apple-macos11", "arm64", "macos", "11.0"),
                                                 ("x86_64-apple-ios14-simulator", "x86_64", "iossimulator", "14.0"),
                                                 ("arm64e-apple-macos12", "arm64e", "macos", "12.0")] {
            let object = directory.appending("\(target).o")
            let compiled = try Subprocess.run(clang, ["-target", target, "-c", source, "-o", object])
            try #require(compiled.status == 0, "\(compiled)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: object)))
            let seen = try #require(try objdump(bytes, name: "\(target).copy").values.first)
            let result = read(bytes)
            #expect(result.errors.isEmpty, "\(target): \(result.errors)")
            let slice = try #require(result.slices.first)
            #expect(slice.arch == arch, "\(target)")
            #expect(slice.fileType == "object" && seen.fileType == "OBJECT")
            #expect(slice.platform == platform && seen.platform == platform)
            #expect(slice.minOS == minOS && seen.minOS == minOS)
            #expect(slice.uuid == nil && seen.uuid == nil) // clang gives objects no LC_UUID; the linker does
        }
    }

    @Test func elfBuildIDsAreReadFromProgramHeaders() throws {
        let id = Array(MachOImage.uuid(seed: 5)) + [1, 2, 3, 4]
        let bytes = ELFImage(buildID: id).bytes()
        let path = directory.appending("tool")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let notes = try Toolchain.output("readelf", ["-n", "-h", path])
        let result = read(bytes)
        #expect(result.errors.isEmpty)
        let slice = try #require(result.slices.first)
        #expect(slice.format == .elf && slice.arch == "x86_64" && notes.contains("Advanced Micro Devices X86-64"))
        #expect(slice.fileType == "executable" && notes.contains("DYN"))
        #expect(slice.uuid == id.map { String(format: "%02x", $0) }.joined())
        #expect(notes.contains("Build ID: \(slice.uuid ?? "-")"))
        #expect(read(ELFImage(buildID: nil).bytes()).slices.first?.uuid == nil)
    }

    /// A build-id too short to look up is an error, not a UUID the catalogue could not key (and
    /// so would lose between a scan and its row).
    @Test func aBuildIDTooShortToLookUpIsAnError() throws {
        for length in [1, 2, 3] {
            let result = read(ELFImage(buildID: Array(repeating: 0xAB, count: length)).bytes())
            let slice = try #require(result.slices.first)
            #expect(slice.uuid == nil && slice.uuidKey == nil)
            #expect(result.errors == ["x86_64: a build-id of \(length) bytes is too short to identify a build"])
        }
        let shortest = try #require(read(ELFImage(buildID: [1, 2, 3, 4]).bytes()).slices.first)
        #expect(shortest.uuid == "01020304" && shortest.uuidKey == "01020304")
    }

    @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
    func aRealGNUstepExecutableHasItsBuildID() throws {
        let bytes = try readCorpusFile("Applications/Chess.app/Chess")
        let result = read(bytes, file: "Chess")
        #expect(result.errors.isEmpty, "\(result.errors)")
        let slice = try #require(result.slices.first)
        #expect(slice.arch == "x86_64" && slice.fileType == "executable")
        let notes = try Toolchain.output("readelf", ["-n", Corpus.path("Applications/Chess.app/Chess")])
        #expect(notes.contains("Build ID: \(slice.uuid ?? "-")"))
    }

    @Test func uuidsCompareWithoutCaseOrHyphens() {
        let canonical = BinarySlice.canonicalUUID(MachOImage.uuid(seed: 6))
        #expect(canonical.count == 36 && canonical == canonical.uppercased())
        let key = BinarySlice.uuidKey(canonical)
        #expect(key != nil)
        #expect(BinarySlice.uuidKey(canonical.lowercased()) == key)
        #expect(BinarySlice.uuidKey(canonical.replacingOccurrences(of: "-", with: "")) == key)
        #expect(BinarySlice.displayUUID(key: key!) == canonical)
        #expect(BinarySlice.uuidKey("not-a-uuid") == nil)
        #expect(BinarySlice.uuidKey("abc") == nil)
    }

    @Test func scriptsAndTextAreNotBinariesAndNotErrors() {
        for bytes in [Array("#!/bin/sh\necho hi\n".utf8), [], [0xCA, 0xFE]] {
            let result = read(bytes)
            #expect(result.isNotBinary && result.errors.isEmpty && result.slices.isEmpty)
        }
    }

    @Test func lyingHeadersAreErrorsNotCrashes() {
        let good = MachOImage.arm64(uuid: MachOImage.uuid(seed: 7)).bytes()
        func patched(_ offset: Int, _ value: UInt32, in bytes: [UInt8] = good, bigEndian: Bool = false) -> [UInt8] {
            var bytes = bytes
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(bigEndian ? 3 - index : index))) }
            return bytes
        }
        let cases: [(String, [UInt8])] = [
            ("ncmds 0xFFFFFFFF", patched(16, 0xFFFF_FFFF)),
            ("sizeofcmds past the end", patched(20, 0x0010_0000)),
            ("sizeofcmds 0xFFFFFFFF", patched(20, 0xFFFF_FFFF)),
            ("a command of size 0", patched(32 + 4, 0)),
            ("a command larger than the rest", patched(32 + 4, 0x7FFF_FFF0)),
            ("truncated", Array(good.prefix(40))),
            ("a signature offset past the end", { var image = MachOImage.arm64(uuid: nil); image.signature = ("x", nil)
                let bytes = image.bytes(); return patched(32 + 24 + 8, 0xFFFF_FF00, in: bytes) }()),
            ("fat count 0xFFFFFFFF", patched(4, 0xFFFF_FFFF, in: MachOImage.universal([.arm64()]), bigEndian: true)),
            ("fat slice past the end", patched(8 + 8, 0x7FFF_0000, in: MachOImage.universal([.arm64()]), bigEndian: true)),
            ("fat slices overlapping", patched(8 + 20 + 8, 4096, in: MachOImage.universal([.arm64(), .x86_64()]), bigEndian: true)),
        ]
        for (label, bytes) in cases {
            let result = read(bytes)
            #expect(!result.errors.isEmpty, "\(label): no error")
            #expect(!result.isNotBinary, "\(label)")
        }
        // Overlapping slices: the first is still read.
        let overlapping = read(cases.last!.1)
        #expect(overlapping.slices.map(\.arch) == ["arm64"])
        #expect(overlapping.errors.contains { $0.contains("overlaps") })
    }

    @Test func mutatedHeadersNeverCrashHangOrReadMuch() {
        let seeds = FuzzSeeds.binaries
        var mutator = Mutator(seed: 0x3AC_40)
        var slowest = 0.0
        var withSlices = 0
        var withErrors = 0
        for iteration in 0..<6000 {
            let seed = seeds[iteration % seeds.count]
            let input = iteration % 2 == 0 ? mutator.mutateWords(seed, within: 160) : mutator.mutate(seed, spliceWith: seeds[(iteration + 1) % seeds.count])
            let start = threadSeconds()
            let result = BinaryReader.read(MemoryByteSource(input), file: "App", budget: 1 << 20)
            slowest = max(slowest, threadSeconds() - start)
            if !result.slices.isEmpty { withSlices += 1 }
            if !result.errors.isEmpty { withErrors += 1 }
        }
        #expect(slowest < 0.2, "slowest \(slowest) s of processor time")
        // Both paths exercised: many mutants still read, many are caught.
        #expect(withSlices > 1500 && withErrors > 1500, "\(withSlices) with slices, \(withErrors) with errors")
    }
}

/// One architecture's headers as `llvm-objdump --macho --private-headers` prints them.
struct ObjdumpSlice {
    var cpu = ""
    var fileType = ""
    var uuid: String?
    var platform: String?
    var minOS: String?
    var sdk: String?
    var hasCodeSignature = false

    static func parse(_ text: String) -> [String: ObjdumpSlice] {
        var slices: [String: ObjdumpSlice] = [:]
        var current = ObjdumpSlice()
        var architecture = "thin"
        var expectHeader = false
        var command = ""
        func finish() { if !current.cpu.isEmpty { slices[architecture] = current } }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = line.split(separator: " ").map(String.init)
            if line.contains("(architecture ") {
                finish()
                current = ObjdumpSlice()
                architecture = String(line.split(separator: "(architecture ").last!.dropLast(2))
            } else if line.hasPrefix("      magic") {
                expectHeader = true
            } else if expectHeader, words.count >= 5 {
                current.cpu = words[1]
                current.fileType = words[4]
                if words[2] == "E" || words[2] == "ARM64E" { current.cpu = "ARM64E" }
                expectHeader = false
            } else if words.first == "cmd" {
                command = words.last ?? ""
                if command == "LC_CODE_SIGNATURE" { current.hasCodeSignature = true }
                let implied = ["LC_VERSION_MIN_MACOSX": "macos", "LC_VERSION_MIN_IPHONEOS": "ios", "LC_VERSION_MIN_TVOS": "tvos", "LC_VERSION_MIN_WATCHOS": "watchos"]
                if let platform = implied[command] { current.platform = platform }
            } else if words.first == "uuid" {
                current.uuid = words.last
            } else if words.first == "platform" {
                current.platform = words.last
            } else if words.first == "minos" || (words.first == "version" && command.hasPrefix("LC_VERSION_MIN")) {
                current.minOS = words.last
            } else if words.first == "sdk" {
                current.sdk = words.last == "n/a" ? nil : words.last
            }
        }
        finish()
        if slices.count == 1, let only = slices["thin"] {
            return [only.cpu.lowercased(): only]
        }
        return slices
    }
}
