import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Icons whose headers declare far more than their bytes hold, through `bundlefs show` (which
/// converts the icon, as the view's `Icon.png` does): a warning on the bundle, in bounded memory.
@Suite struct IconBudgetCommandTests {
    let temporary = TemporaryDirectory("icon-budgets")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }

    /// The command's own peak (about 35 MB); decoding what these declare took 1.3 GB or more.
    static let peakMegabytes = 80.0

    /// `opj_compress`'s JP2 of a transparent 64×64 RGBA image (raw zeros), its SIZ and `ihdr` made
    /// to declare 8000×8000, as the 1.3 KB file opj_compress makes of a blank 8000×8000 image does.
    func hugeJPEG2000() throws -> [UInt8] {
        let raw = temporary.appending("blank.raw"), jp2 = temporary.appending("small.jp2")
        try Data(count: 64 * 64 * 4).write(to: URL(fileURLWithPath: raw))
        let made = try Subprocess.run("/usr/bin/opj_compress", ["-i", raw, "-F", "64,64,4,8,u", "-o", jp2])
        try #require(made.status == 0, "\(made)")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: jp2)))
        let side: [UInt8] = [0, 0, 0x1F, 0x40] // 8000
        let ihdr = try #require(bytes.firstRange(of: Array("ihdr".utf8))).upperBound
        let siz = try #require(bytes.firstRange(of: [0xFF, 0x4F, 0xFF, 0x51])).lowerBound + 2
        for offset in [ihdr, ihdr + 4, siz + 6, siz + 10, siz + 22, siz + 26] { bytes.replaceSubrange(offset..<offset + 4, with: side) }
        return bytes
    }

    /// A PNG whose IHDR declares 100000×100000 (its checksum right) over one row of data.
    func hugePNG() throws -> [UInt8] {
        let path = temporary.appending("huge.png")
        let script = ["import", "struct,", "zlib"].joined(separator: " ") + """

            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
            header = struct.pack('>IIBBBBB', 100000, 100000, 8, 6, 0, 0, 0)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(b'\\0' * 400001)) + chunk(b'IEND', b'')
            open('\(path)', 'wb').write(png)
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func hugeDeclaredIconsAreWarningsInBoundedMemory() throws {
        let cases = [("Jpeg.app", IconFixtures.icns([("ic10", try hugeJPEG2000())]), "8000×8000 image is larger than an icon may be"),
                     ("Png.app", IconFixtures.icns([("ic10", try hugePNG())]), "100000×100000 image is larger than an icon may be")]
        for (app, icns, warning) in cases {
            tree.macApp(app, identifier: "com.example.icon", info: ["CFBundleIconFile": .string("App")])
            tree.file(app + "/Contents/Resources/App.icns", icns)
            let run = try Subprocess.measuredBundlefs(["show", tree.path(app)], catalogue: temporary.appending("unused.sqlite"))
            #expect(run.result.status == 0, "\(app): \(run.result)")
            #expect(run.result.standardOutput.contains(warning), "\(app): \(run.result.standardOutput)")
            #expect(run.peakMegabytes < Self.peakMegabytes, "\(app): \(run.peakMegabytes) MB")
        }
    }
}
