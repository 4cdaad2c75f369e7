import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A tree with a Mach-O app and its dSYM (`MachOWriter`), a GNUstep app whose ELF executable
/// clang builds with a build-id (stripped, its DWARF in `--only-keep-debug` form in a dSYM beside
/// it), and a GNUstep app with a small written ELF; catalogued, and served by `serve-symbols`.
final class SymbolStoreFixture: @unchecked Sendable {
    let temporary = TemporaryDirectory("symbol-server")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }
    let machOUUID = MachOImage.uuid(seed: 61)
    let writtenBuildID: [UInt8] = MachOImage.uuid(seed: 62) + [1, 2, 3, 4]
    /// The clang-built executable's build-id, and a stripped copy outside the tree (for gdb).
    private(set) var compiledBuildID = ""
    private(set) var strippedCopy = ""
    var machOKey: String { machOUUID.map { String(format: "%02x", $0) }.joined() }
    var writtenKey: String { writtenBuildID.map { String(format: "%02x", $0) }.joined() }

    /// - Parameter dwarfSize: the dSYM's DWARF file padded to this many bytes (a file large enough
    ///   to fill the kernel's buffers many times over), else as written.
    init(compile: Bool = true, dwarfSize: Int = 0) throws {
        var dwarf = MachOImage.arm64(uuid: machOUUID)
        dwarf.fileType = 10
        var dwarfBytes = dwarf.bytes()
        if dwarfSize > dwarfBytes.count {
            dwarfBytes += [UInt8](repeating: 0x5A, count: dwarfSize - dwarfBytes.count)
        }
        tree.machOApp("Build/Tool.app", identifier: "org.example.tool", executable: MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 63)), .arm64(uuid: machOUUID)]))
        tree.dSYM("Build/Tool.app.dSYM", dwarfName: "Tool", dwarf: dwarfBytes)
        tree.gnustepApp("GNUstep/Md5.app", info: ["NSExecutable": .string("Md5"), "CFBundleIdentifier": .string("org.example.md5")])
        tree.file("GNUstep/Md5.app/Md5", ELFImage(buildID: writtenBuildID).bytes(), mode: 0o755)
        if compile { try compileSquare() }
        let indexed = try Subprocess.bundlefs(["index", tree.root], catalogue: catalogue)
        guard indexed.status == 0 else { throw Toolchain.ToolMissing(name: "index: \(indexed)") }
    }

    /// `Square.app/Square`, built by clang with a build-id and stripped; its DWARF as its own file.
    private func compileSquare() throws {
        let source = temporary.appending("square.c"), built = temporary.appending("Square")
        try "#include <stdio.h>\nstatic int square(int x) { return x * x; }\nint main(int argc, char **argv) { printf(\"%d\\n\", square(argc)); return 0; }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        _ = try Toolchain.output("clang", ["-g", "-O0", "-Wl,--build-id", "-o", built, source])
        _ = try Toolchain.output("objcopy", ["--only-keep-debug", built, built + ".debug"])
        _ = try Toolchain.output("objcopy", ["--strip-debug", built])
        let notes = try Toolchain.output("readelf", ["-n", built])
        compiledBuildID = try #require(notes.split(separator: "\n").first { $0.contains("Build ID:") }?.split(separator: " ").last.map(String.init))
        tree.gnustepApp("GNUstep/Square.app", info: ["NSExecutable": .string("Square"), "CFBundleIdentifier": .string("org.example.square")])
        tree.file("GNUstep/Square.app/Square", Array(try Data(contentsOf: URL(fileURLWithPath: built))), mode: 0o755)
        tree.dSYM("GNUstep/Square.app.dSYM", dwarfName: "Square", dwarf: Array(try Data(contentsOf: URL(fileURLWithPath: built + ".debug"))))
        strippedCopy = built
    }

    /// The dSYM's DWARF file, as `debuginfo` serves it for `machOKey`.
    var dwarfPath: String { tree.path("Build/Tool.app.dSYM/Contents/Resources/DWARF/Tool") }

    func bytes(_ relative: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: tree.path(relative)))) }
}

/// curl's answer: status, body and headers.
struct CurlAnswer {
    var status: Int
    var body: [UInt8]
    var headers: String
}

func curl(_ url: String, _ arguments: [String] = []) throws -> CurlAnswer {
    let directory = TemporaryDirectory("curl")
    let body = directory.appending("body"), headers = directory.appending("headers")
    let result = try Subprocess.run("/usr/bin/curl", ["-s", "--path-as-is", "-o", body, "-D", headers, "-w", "%{http_code}", "--max-time", "10"] + arguments + [url])
    let data = (try? Data(contentsOf: URL(fileURLWithPath: body))) ?? Data()
    return CurlAnswer(status: Int(result.standardOutput) ?? -1, body: Array(data), headers: (try? String(contentsOfFile: headers, encoding: .utf8)) ?? "")
}
