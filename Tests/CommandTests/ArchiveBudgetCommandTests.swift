import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Hostile archives through `bundlefs index` with the standard limits (Docs/archives.md): each is
/// catalogued with its error, within the 30 s an archive may take, in bounded memory.
@Suite struct ArchiveBudgetCommandTests {
    let temporary = TemporaryDirectory("archive-budgets")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    /// The command's own peak (about 35 MB indexing a small tree) plus room for libarchive's
    /// buffers; decompressing what these archives hold would take gigabytes or minutes.
    static let peakMegabytes = 80.0

    func archiveErrors() throws -> String {
        try Subprocess.run("/usr/bin/sqlite3", [catalogue, "SELECT path || ': ' || error FROM archives WHERE error IS NOT NULL"]).standardOutput
    }

    /// 80 KB of `.tar.bz2` whose one member claims and holds 64 GiB of zeros (bzip2 streams of 64 MiB
    /// each, concatenated): skipping it whole took 133 s.
    @Test func aSixtyFourGibibyteMemberIsStoppedInsideItsSkip() throws {
        tree.macApp("Beside.app", identifier: "com.example.beside")
        let bomb = tree.path("Bomb.tar.bz2")
        let script = ["import", "bz2,", "tarfile"].joined(separator: " ") + """

            info = tarfile.TarInfo('Payload/Bomb.app/Contents/Resources/data')
            info.size = 64 << 30
            piece = bz2.compress(b'\\0' * (64 << 20), 9)
            with open('\(bomb)', 'wb') as out:
                out.write(bz2.compress(info.tobuf(format=tarfile.GNU_FORMAT), 9))
                out.write(piece * 1024)
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        #expect(try FileStatus.of(bomb).size < 100_000)

        let run = try Subprocess.measuredBundlefs(["index", tree.root], catalogue: catalogue, timeout: 60)
        #expect(run.result.status == 0, "\(run.result)")
        #expect(run.seconds < 30 + 5, "\(run.seconds) s")
        #expect(run.peakMegabytes < Self.peakMegabytes, "\(run.peakMegabytes) MB")
        let errors = try archiveErrors()
        #expect(errors.contains("Bomb.tar.bz2: ") && errors.contains("-fold compression"), "\(errors)")
        let beside = try Subprocess.bundlefs(["query", "com.example.beside"], catalogue: catalogue)
        #expect(beside.standardOutput.contains("com.example.beside"))
    }
}
