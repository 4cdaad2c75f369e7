import BundleModel
import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// Installer packages (rule 33): indexing a repository of 1,000 flat `.pkg` files of about 2 MB
/// each, against listing each package and its payload with `bsdtar` in a shell loop (`bsdtar -tf`
/// of the package, then its `Payload` piped to `bsdtar -tf -`): the least any tool that reports
/// what a package installs must decompress. Each payload (gzip'd cpio, as `pkgbuild` writes it)
/// holds a signed application with localized names, 40 small resources and 2 MB that does not
/// compress (`bench-out/pkg-tree`, written once).
enum InstallerBench {
    static let count = 1_000
    static let version = "1"

    static func run(binary: String, output: String, runs: Int, report: inout Report) throws {
        let bench = ArchiveDirectoryBench(directory: Paths.join(output, "pkg-tree"), stamp: "pkg \(version) \(count)")
        func name(_ index: Int) -> String { Paths.join(bench.directory, "App\(index)-\(index % 9 + 1).0.pkg") }
        try bench.generateOnce("\(count) .pkg files") {
            let payload = Paths.join(output, "pkg-payload")
            for index in 0..<count {
                removeTree(payload)
                writeApp(TreeWriter(root: payload), index: index)
                try InstallerPackageBuilder.build(name(index), components: [
                    .init(identifier: "com.example.pkg\(index)", version: "\(index % 9 + 1).0", installLocation: "/Applications", payload: payload,
                          bundles: [("com.example.pkg\(index)", "./App\(index).app")]),
                ], staging: Paths.join(output, "pkg-staging"))
            }
            removeTree(payload)
            removeTree(Paths.join(output, "pkg-staging"))
        }
        let names = (0..<count).map(name)
        let samples = bench.measure(binary: binary, catalogue: Paths.join(output, "pkg.sqlite"), files: names, loop: """
            for f in "$@"; do /usr/bin/bsdtar -tf "$f"; /usr/bin/bsdtar -xOf "$f" Payload | /usr/bin/bsdtar -tf -; done > /dev/null
            """, runs: runs)
        let bytes = names.reduce(Int64(0)) { $0 + ((try? FileStatus.of(FilePath($1)).size) ?? 0) }
        report.add("index of \(count) .pkg files", seconds: samples.viewMedian, against: "bsdtar -tf each and its payload", baselineSeconds: samples.nativeMedian,
                   goal: "≤ 2x")
        report.notes.append(String(format: "index of %d .pkg files (%.0f MB): %@; `bsdtar -tf` of each and of its payload in a shell loop: %@ (alternating runs)",
                                   count, Double(bytes) / 1e6, PairedSamples.describe(samples.view), PairedSamples.describe(samples.native)))
    }

    /// A macOS application as a vendor ships it in a package.
    static func writeApp(_ tree: TreeWriter, index: Int) {
        let app = "App\(index).app/Contents"
        tree.plist(app + "/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.pkg\(index)"), "CFBundleExecutable": .string("App\(index)"),
            "CFBundlePackageType": .string("APPL"), "CFBundleVersion": .string("\(index % 9 + 1).0"),
            "CFBundleDisplayName": .string("App \(index)"), "LSMinimumSystemVersion": .string("12.0"),
        ]), format: .binary)
        var arm = MachOImage.arm64(uuid: MachOImage.uuid(seed: 200_000 + index))
        arm.buildVersion = (1, MachOImage.version(12, 0), MachOImage.version(14, 0))
        arm.signature = ("com.example.pkg\(index)", "BENCHTEAM1")
        arm.bodySize = 200_000
        tree.file(app + "/MacOS/App\(index)", arm.bytes(), mode: 0o755)
        tree.strings(app + "/Resources/en.lproj/InfoPlist.strings", ["CFBundleDisplayName": "App \(index)"], as: .utf8)
        tree.strings(app + "/Resources/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Programm \(index)"], as: .utf8)
        for name in (0..<40).map({ "Asset\($0).png" }) { tree.file(app + "/Resources/" + name, [UInt8](repeating: UInt8(index & 0xFF), count: 2048)) }
        // 2 MB no compressor shrinks: a xorshift stream, different in each package.
        var state = UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15
        let noise = (0..<(2 << 20) / 8).flatMap { _ -> [UInt8] in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return withUnsafeBytes(of: state) { Array($0) }
        }
        tree.file(app + "/Resources/Data.bin", noise)
        tree.text(app + "/_CodeSignature/CodeResources", "<plist/>")
    }

    /// Packages made to cost their reader (issue 37), each indexed alone by `bundlefs index` under
    /// GNU time: a 1 MB package whose xar table of contents expands to 300 MB of one entry
    /// repeated (before its header was judged: 32 s and 4.5 GB for 600 MB; now refused at open),
    /// and product archives of 2,500 and 10,000 components, each with its payload (before each
    /// payload was looked up by name: 1.9 s and 26 s, a walk per component; now linear).
    static func runLimits(binary: String, output: String, report: inout Report) throws {
        let directory = Paths.join(output, "pkg-limits")
        let bench = ArchiveDirectoryBench(directory: directory, stamp: "pkg limits \(version)")
        let sizes = [2_500, 10_000]
        func tree(_ name: String) -> String { Paths.join(directory, name) }
        try bench.generateOnce("hostile and wide .pkg files") {
            try FileManager.default.createDirectory(atPath: tree("bomb"), withIntermediateDirectories: true)
            try HostileXar.write(Paths.join(tree("bomb"), "Bomb.pkg"), entries: 3_700_000, identical: true)
            let payload = Paths.join(output, "pkg-part")
            removeTree(payload)
            TreeWriter(root: payload).macApp("Part.app", identifier: "org.example.part")
            for count in sizes {
                try FileManager.default.createDirectory(atPath: tree("wide-\(count)"), withIntermediateDirectories: true)
                try InstallerPackageBuilder.buildWide(Paths.join(tree("wide-\(count)"), "Parts.pkg"), components: count, payload: payload,
                                                      staging: Paths.join(output, "pkg-staging"))
            }
            removeTree(payload)
            removeTree(Paths.join(output, "pkg-staging"))
        }
        let catalogue = Paths.join(output, "pkg-limits.sqlite")
        func index(_ name: String) throws -> MeasuredRun {
            CatalogueFiles.remove(catalogue)
            return try Subprocess.measured(binary, ["index", tree(name)], environment: ["BUNDLEFS_CATALOGUE": catalogue], timeout: 600)
        }
        let bombSize = (try? FileStatus.of(FilePath(Paths.join(tree("bomb"), "Bomb.pkg"))).size) ?? 0
        let bomb = try index("bomb")
        report.add(String(format: "index of a %.1f MB .pkg whose table of contents expands to 300 MB", Double(bombSize) / 1e6),
                   value: String(format: "%.2f s, %.0f MB", bomb.seconds, bomb.peakMegabytes), goal: "< 1 s and 50 MB (600 MB of it took 32 s, 4.5 GB)")
        let wide = try sizes.map { try index("wide-\($0)") }
        for (count, run) in zip(sizes, wide) {
            report.add("index of a product archive of \(count) components", value: String(format: "%.2f s, %.0f MB", run.seconds, run.peakMegabytes),
                       goal: count == sizes.last ? "linear: ≤ 5x the \(sizes[0]) (was 26 s against 1.9 s)" : "")
        }
        report.notes.append(String(format: "product archives: %d components in %.2f s, %d in %.2f s (%.1fx for %dx the components)",
                                   sizes[0], wide[0].seconds, sizes[1], wide[1].seconds, wide[1].seconds / wide[0].seconds, sizes[1] / sizes[0]))
    }
}
