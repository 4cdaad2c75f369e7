import BundleModel
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// Looking inside archives (SPEC.md "Performance"): indexing a directory of 1,000 `.ipa` files,
/// against listing the same files' members with `bsdtar -tf`, one after the other as a shell
/// loop runs it.
enum ArchiveBench {
    static let count = 1_000
    static let version = "1"

    static func run(binary: String, output: String, runs: Int, report: inout Report) throws {
        let bench = ArchiveDirectoryBench(directory: Paths.join(output, "ipa-tree"), stamp: "ipa \(version) \(count)")
        try bench.generateOnce("\(count) .ipa files") {
            let staging = Paths.join(output, "ipa-staging")
            for index in 0..<count {
                removeTree(staging)
                writeApp(TreeWriter(root: staging), index: index)
                let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", Paths.join(bench.directory, "App\(index).ipa"), "Payload"], directory: staging)
                precondition(zipped.status == 0, "zip failed: \(zipped)")
            }
            removeTree(staging)
        }
        let names = (0..<count).map { Paths.join(bench.directory, "App\($0).ipa") }
        let samples = bench.measure(binary: binary, catalogue: Paths.join(output, "ipa.sqlite"), files: names,
                                    loop: "for f in \"$@\"; do /usr/bin/bsdtar -tf \"$f\"; done > /dev/null", runs: runs)
        report.add("index of \(count) .ipa files", seconds: samples.viewMedian, against: "bsdtar -tf each", baselineSeconds: samples.nativeMedian, goal: "≤ 2x")
        report.notes.append("index of \(count) .ipa files: \(PairedSamples.describe(samples.view)); `bsdtar -tf` of each in a shell loop: \(PairedSamples.describe(samples.native)) (alternating runs)")
    }

    /// An iOS-style app as a build machine ships it: Info.plist, a signed executable, localized
    /// names, an icon, and resources the index lists but does not read.
    static func writeApp(_ tree: TreeWriter, index: Int) {
        let app = "Payload/App\(index).app"
        tree.plist(app + "/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.ipa\(index)"), "CFBundleExecutable": .string("App\(index)"),
            "CFBundlePackageType": .string("APPL"), "CFBundleVersion": .string("\(index % 9 + 1).0"),
            "CFBundleDisplayName": .string("App \(index)"), "MinimumOSVersion": .string("15.0"),
        ]), format: .binary)
        var arm = MachOImage.arm64(uuid: MachOImage.uuid(seed: 100_000 + index))
        arm.buildVersion = (2, MachOImage.version(15, 0), MachOImage.version(17, 0))
        arm.signature = ("com.example.ipa\(index)", "BENCHTEAM1")
        arm.bodySize = 200_000
        tree.file(app + "/App\(index)", arm.bytes(), mode: 0o755)
        tree.strings(app + "/en.lproj/InfoPlist.strings", ["CFBundleDisplayName": "App \(index)"], as: .utf8)
        tree.strings(app + "/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Programm \(index)"], as: .utf8)
        for name in (0..<20).map({ "Asset\($0).png" }) { tree.file(app + "/" + name, [UInt8](repeating: UInt8(index & 0xFF), count: 2048)) }
        tree.text(app + "/_CodeSignature/CodeResources", "<plist/>")
    }
}
