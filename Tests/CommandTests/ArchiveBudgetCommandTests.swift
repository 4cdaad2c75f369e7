import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Hostile archives through `bundlefs index` with the standard limits (Docs/archives.md): each is
/// catalogued with the error of the limit that stopped it (its time is the benchmark's), in
/// bounded memory.
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
        #expect(run.peakMegabytes < Self.peakMegabytes, "\(run.peakMegabytes) MB")
        let errors = try archiveErrors()
        #expect(errors.contains("Bomb.tar.bz2: ") && errors.contains("-fold compression"), "\(errors)")
        let beside = try Subprocess.bundlefs(["query", "com.example.beside"], catalogue: catalogue)
        #expect(beside.standardOutput.contains("com.example.beside"))
    }

    /// A 400 KB `.pkg` whose xar table of contents expands to 120 MB of one entry repeated:
    /// libarchive parsed it whole before any limit (600 MB took 4.5 GB and 32 s); it is refused
    /// from its header, and the rest of the tree is catalogued.
    @Test func aPackageWhoseTableOfContentsExpandsIsRefusedFromItsHeader() throws {
        tree.macApp("Beside.app", identifier: "com.example.beside")
        let bomb = tree.path("Bomb.pkg")
        let (uncompressed, _) = try HostileXar.write(bomb, entries: 1_500_000, identical: true)
        #expect(uncompressed > 100 << 20)
        #expect(try FileStatus.of(bomb).size < 1_000_000)

        let run = try Subprocess.measuredBundlefs(["index", tree.root], catalogue: catalogue, timeout: 120)
        #expect(run.result.status == 0, "\(run.result)")
        #expect(run.peakMegabytes < Self.peakMegabytes, "\(run.peakMegabytes) MB")
        let errors = try archiveErrors()
        #expect(errors.contains("Bomb.pkg: the xar table of contents expands") && errors.contains("-fold"), "\(errors)")
        let beside = try Subprocess.bundlefs(["query", "com.example.beside"], catalogue: catalogue)
        #expect(beside.standardOutput.contains("com.example.beside"))
    }

    /// A zip of a million empty members (ZIP64, written record by record: zipfile takes a minute):
    /// libarchive read its whole central directory, 230 MB, before the member limit applied.
    @Test func aMillionMemberZipIsRefusedFromItsEndRecord() throws {
        tree.macApp("Beside.app", identifier: "com.example.beside")
        let zip = tree.path("Many.zip")
        let script = ["import", "struct"].joined(separator: " ") + """

            n, local, central, offset = 1000000, [], [], 0
            for i in range(n):
                name = b'm/%d' % i
                header = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0) + name
                central.append(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0x21, 0, 0, 0, len(name), 0, 0, 0, 0, 0, offset) + name)
                local.append(header)
                offset += len(header)
            directory = b''.join(central)
            end = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, n, n, len(directory), offset)
            end += struct.pack('<IIQI', 0x07064b50, 0, offset + len(directory), 1)
            end += struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, len(directory), offset, 0)
            open('\(zip)', 'wb').write(b''.join(local) + directory + end)
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")

        let run = try Subprocess.measuredBundlefs(["index", tree.root], catalogue: catalogue)
        #expect(run.result.status == 0, "\(run.result)")
        #expect(run.peakMegabytes < Self.peakMegabytes, "\(run.peakMegabytes) MB")
        let errors = try archiveErrors()
        #expect(errors.contains("Many.zip: more than 100000 members"), "\(errors)")
    }
}
