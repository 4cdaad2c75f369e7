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
        let directory = Paths.join(output, "ipa-tree")
        let marker = Paths.join(directory, ".bundlefs-bench-ipas")
        if (try? String(contentsOfFile: marker, encoding: .utf8)) != "\(version) \(count)" {
            progress("writing \(count) .ipa files in \(directory) ...")
            removeTree(directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let staging = Paths.join(output, "ipa-staging")
            for index in 0..<count {
                removeTree(staging)
                writeApp(TreeWriter(root: staging), index: index)
                let zip = Process()
                zip.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
                zip.arguments = ["-qry", Paths.join(directory, "App\(index).ipa"), "Payload"]
                zip.currentDirectoryURL = URL(fileURLWithPath: staging)
                try zip.run()
                zip.waitUntilExit()
                precondition(zip.terminationStatus == 0, "zip failed")
            }
            removeTree(staging)
            try "\(version) \(count)".write(toFile: marker, atomically: false, encoding: .utf8)
        }
        let names = (0..<count).map { Paths.join(directory, "App\($0).ipa") }
        let listAll = "for f in \"$@\"; do /usr/bin/bsdtar -tf \"$f\"; done > /dev/null"
        _ = Timing.run("/bin/sh", ["-c", listAll, "sh"] + names)
        let catalogue = Paths.join(output, "ipa.sqlite")
        var samples = PairedSamples()
        for _ in 0..<max(5, runs) {
            samples.native.append(Timing.run("/bin/sh", ["-c", listAll, "sh"] + names))
            CatalogueFiles.remove(catalogue)
            samples.view.append(Timing.run(binary, ["index", directory], environment: ["BUNDLEFS_CATALOGUE": catalogue]))
        }
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
