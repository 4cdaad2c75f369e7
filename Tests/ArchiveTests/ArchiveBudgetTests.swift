import Archives
import BundleModel
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Rule 27: each limit of `ArchiveLimits` holds on its own, inside a member as between members.
/// The bombs are tars whose one member claims 64 GiB, followed by zeros: a member nobody reads,
/// which libarchive would decompress whole to skip.
@Suite struct ArchiveBudgetTests {
    let temporary = TemporaryDirectory("budgets")

    /// How much processor time past a limit of seconds a read may take: one block of decompression.
    static let slack = 2.0

    /// A tar.`kind` of the 64 GiB member with `gibibytes` of its zeros. Every 64 MiB is compressed
    /// once and its stream repeated: gzip, bzip2, xz and zstd each read concatenated streams as one,
    /// so writing it costs about a second.
    func bomb(_ kind: String, gibibytes: Int) throws -> String {
        let path = temporary.appending("bomb.tar.\(kind)")
        let script = ["import", "bz2,", "gzip,", "lzma,", "subprocess,", "tarfile"].joined(separator: " ") + """

            info = tarfile.TarInfo('Payload/Bomb.app/Contents/Resources/data')
            info.size = 64 << 30
            def compress(data):
                kind = '\(kind)'
                if kind == 'gz': return gzip.compress(data, 9)
                if kind == 'bz2': return bz2.compress(data, 9)
                if kind == 'xz': return lzma.compress(data)
                return subprocess.run(['zstd', '-19', '-q', '-c'], input=data, capture_output=True, check=True).stdout
            piece = compress(b'\\0' * (64 << 20))
            with open('\(path)', 'wb') as out:
                out.write(compress(info.tobuf(format=tarfile.GNU_FORMAT)))
                for _ in range(\(gibibytes * 16)):
                    out.write(piece)
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        return path
    }

    /// Inspects the archive at `path` with `limits`; returns its error and the processor time the
    /// inspecting thread spent: what skipping a member whole would cost (7 to 11 s), and what a
    /// loaded machine does not stretch the way it stretches the wall clock.
    func inspect(_ path: String, limits: ArchiveLimits) throws -> (error: String?, seconds: Double) {
        let root = try ScanRoot(path: FilePath(temporary.path))
        let inspector = ArchiveInspector(inspector: BundleInspector(root: root), limits: limits)
        let start = threadSeconds()
        let result = inspector.inspect(archive: FilePath(path)) { try Descriptor.open(FilePath(path), flags: Descriptor.readOnly) }
        return (result.error, threadSeconds() - start)
    }

    /// Limits with every other one out of the way (no ratio, no byte budget within reach).
    static let unlimited = ArchiveLimits(uncompressedBytes: 1 << 50, compressionRatio: 1 << 30, seconds: 600)

    /// Sizes that take each decompressor well over `1 s + slack` to skip whole (4 GiB: 7 to 11 s
    /// here; zstd skips 64 GiB of zeros in about 8 s).
    static let bombs: [(String, Int)] = [("gz", 4), ("bz2", 4), ("xz", 4), ("zst", 64)]

    @Test(arguments: bombs)
    func eachLimitStopsTheSkipOfOneMember(kind: String, gibibytes: Int) throws {
        let path = try bomb(kind, gibibytes: gibibytes)

        var seconds = Self.unlimited
        seconds.seconds = 1
        let timed = try inspect(path, limits: seconds)
        #expect(timed.error?.contains("took more than 1 s") == true, "\(kind): \(timed.error ?? "no error")")
        #expect(timed.seconds < 1 + Self.slack, "\(kind): \(timed.seconds) s")

        var bytes = Self.unlimited
        bytes.uncompressedBytes = 256 << 20
        let budget = try inspect(path, limits: bytes)
        #expect(budget.error?.contains("more than 256 MiB decompressed") == true, "\(kind): \(budget.error ?? "no error")")
        #expect(budget.seconds < 1 + Self.slack, "\(kind): \(budget.seconds) s")

        let ratio = try inspect(path, limits: .standard)
        #expect(ratio.error?.contains("-fold compression") == true, "\(kind): \(ratio.error ?? "no error")")
        #expect(ratio.seconds < Self.slack, "\(kind): \(ratio.seconds) s")
    }

    /// Zip members are skipped by seeking; a bomb goes off only when a member is read, and is
    /// stopped there by the ratio or by the byte budget, whichever comes first.
    @Test func aZipBombStopsAtEitherLimit() throws {
        let path = temporary.appending("bomb.ipa")
        let script = ["import", "zipfile"].joined(separator: " ") + """

            with zipfile.ZipFile('\(path)', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('Payload/Bomb.app/Info.plist', b'\\0' * (256 << 20))
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        var bytes = Self.unlimited
        bytes.uncompressedBytes = 4 << 20
        let budget = try inspect(path, limits: bytes)
        #expect(budget.error?.contains("more than 4 MiB decompressed") == true, "\(budget.error ?? "no error")")
        let ratio = try inspect(path, limits: .standard)
        #expect(ratio.error?.contains("-fold compression") == true, "\(ratio.error ?? "no error")")
        #expect(max(budget.seconds, ratio.seconds) < Self.slack)
    }
}
