import Archives
import BundleModel
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Member names as a hostile archive writes them: thousands of directories deep. Reading one costs
/// time in proportion to its length, a name longer than a Mac's PATH_MAX is not listed, and the
/// directories names imply count toward the member limit (rule 27).
@Suite struct ArchiveNameTests {
    let temporary = TemporaryDirectory("names")

    /// A pax tar (names of any length) of `names`, each a one-byte file.
    func tar(_ names: [String]) throws -> String {
        let path = temporary.appending("names.tar")
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        let script = ["import", "io,", "tarfile"].joined(separator: " ") + """

            with tarfile.open('\(path)', 'w', format=tarfile.PAX_FORMAT) as t:
                for name in [\(list)]:
                    info = tarfile.TarInfo(name)
                    info.size = 1
                    t.addfile(info, io.BytesIO(b'x'))
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        return path
    }

    func inspect(_ path: String, limits: ArchiveLimits = .standard) throws -> (result: ArchiveInspector.Result, seconds: Double) {
        let root = try ScanRoot(path: FilePath(temporary.path))
        // The thread's processor time: a loaded machine stretches the wall clock, not this.
        let start = threadSeconds()
        let result = ArchiveInspector(inspector: BundleInspector(root: root), limits: limits).inspect(archive: FilePath(path)) {
            try Descriptor.open(FilePath(path), flags: Descriptor.readOnly)
        }
        return (result, threadSeconds() - start)
    }

    func deep(_ top: Int, _ depth: Int, _ leaf: String = "file") -> String {
        "\(top)/" + String(repeating: "d/", count: depth - 1) + leaf
    }

    /// Ten members 480 directories deep (names of 990 bytes, within the limit) took 14 s; a bundle at
    /// the bottom is found like any other.
    @Test func deepNamesCostTheirLength() throws {
        let names = (0..<10).map { deep($0, 480) } + [deep(10, 480, "Deep.app/Contents/Info.plist")]
        let (result, seconds) = try inspect(try tar(names))
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.records.map { $0.member.map { Array($0.components.suffix(2)) } } == [["d", "Deep.app"]])
        #expect(seconds < 2, "\(seconds) s")
    }

    /// Names 1,000 directories deep (2,000 bytes) are longer than any path a Mac can extract: they
    /// are not listed, and the archive says so. Two of them took 14 s, ten 2,000 deep took 286 s.
    @Test func namesLongerThanAMacPathAreIgnoredWithAnError() throws {
        let names = [deep(0, 1000), deep(1, 1000), "Short/Info.plist"]
        let (result, seconds) = try inspect(try tar(names))
        #expect(result.error == "2 member names longer than 1024 bytes ignored", "\(result.error ?? "no error")")
        #expect(result.members == 3)
        #expect(seconds < 2, "\(seconds) s")
    }

    /// Ten members 200 directories deep make 2,000 paths in the tree: past a limit of 1,000 members,
    /// though only ten were listed.
    @Test func impliedDirectoriesCountTowardTheMemberLimit() throws {
        var limits = ArchiveLimits.standard
        limits.members = 1000
        let (result, _) = try inspect(try tar((0..<10).map { deep($0, 200) }), limits: limits)
        #expect(result.error?.contains("more than 1000 members") == true, "\(result.error ?? "no error")")
    }
}
