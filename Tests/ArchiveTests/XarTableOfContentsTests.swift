import Archives
import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A xar's table of contents is judged before libarchive reads it (rule 27): libarchive parses the
/// whole table into memory first, so a 1 MB `.pkg` whose table expanded to 600 MB took 4.5 GB.
/// The header's lengths are held to the file, the byte budget and the ratio; a header that lies is
/// caught as the table is inflated; and the members it lists are counted before libarchive
/// allocates them.
@Suite struct XarTableOfContentsTests {
    let temporary = TemporaryDirectory("xar-toc")

    func open(_ path: String, limits: ArchiveLimits = .standard) throws -> ArchiveReader {
        try ArchiveReader(try Descriptor.open(FilePath(path), flags: Descriptor.readOnly), limits: limits)
    }

    func refusal(_ path: String, limits: ArchiveLimits = .standard) -> String? {
        do {
            _ = try open(path, limits: limits)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// 40 MB of identical entries zlib'd to about 140 KB: refused from the header, at open.
    @Test func aTableThatExpandsManyFoldIsRefusedAtOpen() throws {
        let path = temporary.appending("bomb.pkg")
        let (uncompressed, compressed) = try HostileXar.write(path, entries: 500_000, identical: true)
        #expect(uncompressed / compressed > 100)
        let error = try #require(refusal(path))
        #expect(error.contains("the xar table of contents expands \(uncompressed / compressed)-fold"), "\(error)")
    }

    /// The same table under a header that says 4 KiB: caught once 4 KiB have been inflated.
    @Test func aHeaderThatUnderstatesTheTableIsCaughtAsItIsInflated() throws {
        let path = temporary.appending("liar.pkg")
        try HostileXar.write(path, entries: 500_000, identical: true, declared: 4096)
        #expect(refusal(path) == "the xar table of contents expands past the 4096 bytes its header says; not read")
    }

    /// Within the ratio and under a megabyte, but listing more members than the limit: counted
    /// in the inflated table before libarchive builds them.
    @Test func theMembersATableListsAreCountedBeforeLibarchiveReadsThem() throws {
        let path = temporary.appending("many.pkg")
        let (uncompressed, compressed) = try HostileXar.write(path, entries: 5_000, identical: false)
        #expect(uncompressed / compressed < 100)
        let limits = ArchiveLimits(members: 1_000)
        #expect(refusal(path, limits: limits) == "more than 1000 members: the xar table of contents lists more; not read")
        // Counted exactly, though tags straddle the pieces the table is inflated in: one under
        // refuses, at the limit it opens and lists every member.
        #expect(refusal(path, limits: ArchiveLimits(members: 4_999)) != nil)
        let reader = try open(path, limits: ArchiveLimits(members: 5_000))
        var listed = 0
        while try reader.next() != nil { listed += 1 }
        #expect(listed == 5_000)
    }

    /// Lengths past the file or past the byte budget are refused from the header alone.
    @Test func lengthsPastTheFileOrTheBudgetAreRefused() throws {
        let path = temporary.appending("long.pkg")
        let (_, compressed) = try HostileXar.write(path, entries: 10, identical: false, extraCompressed: 1 << 30)
        let size = try FileStatus.of(FilePath(path)).size
        #expect(refusal(path) == "the xar table of contents is \(compressed + (1 << 30)) bytes, more than the file's \(size - 28) after its header; not read")
        try HostileXar.write(path, entries: 10, identical: false, declared: 3 << 30)
        #expect(refusal(path) == "the xar table of contents expands to 3072 MiB, more than 2048 MiB; not read")
    }

    /// A xar is read only as it is on disk: gzip'd, its table would reach libarchive through a
    /// filter no check of ours sees, so it is not read as a xar at all.
    @Test func aXarBehindACompressionFilterIsNotRead() throws {
        let path = temporary.appending("small.xar")
        try HostileXar.write(path, entries: 3, identical: false)
        let reader = try open(path)
        #expect(try reader.next()?.path == FilePath("m0"))
        let gzipped = temporary.appending("small.tar.gz")
        let made = try Subprocess.run("/bin/sh", ["-c", "gzip -c \"$1\" > \"$2\"", "sh", path, gzipped])
        try #require(made.status == 0, "\(made)")
        #expect(refusal(gzipped)?.hasPrefix("not an archive bundlefs reads") == true, "\(refusal(gzipped) ?? "opened")")
    }

    /// Honest packages as bsdtar writes them keep reading (the other installer tests read many).
    @Test func anHonestXarReads() throws {
        let tree = TreeWriter(root: temporary.appending("tree"))
        for index in 0..<200 { tree.text("Docs/\(index).txt", String(repeating: "page \(index) ", count: 50)) }
        let path = temporary.appending("honest.xar")
        let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", path, "--format", "xar", "-C", tree.root, "."])
        try #require(made.status == 0, "\(made)")
        let reader = try open(path, limits: ArchiveLimits(members: 202))
        var listed = 0
        while try reader.next() != nil { listed += 1 }
        #expect(listed >= 200)
    }

    /// Mutated xar files (header words, the table's bytes) opened and listed: never a crash, and
    /// never a table past the limits reaching libarchive.
    @Test func mutatedTablesAreJudgedWithoutACrash() throws {
        let tree = TreeWriter(root: temporary.appending("fuzz-tree"))
        tree.macApp("Editor.app", identifier: "org.example.editor")
        let honest = temporary.appending("fuzz-honest.xar")
        let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", honest, "--format", "xar", "-C", tree.root, "."])
        try #require(made.status == 0, "\(made)")
        let bomb = temporary.appending("fuzz-bomb.xar")
        try HostileXar.write(bomb, entries: 20_000, identical: true)
        let seeds = try [honest, bomb].map { try Array(Data(contentsOf: URL(fileURLWithPath: $0))) }
        var mutator = Mutator(seed: 0x58A2)
        let limits = ArchiveLimits(members: 5_000, uncompressedBytes: 64 << 20, seconds: 5)
        let path = temporary.appending("fuzz.xar")
        var opened = 0
        for iteration in 0..<3_000 {
            let seed = seeds[iteration % seeds.count]
            let input = iteration % 2 == 0 ? mutator.mutateWords(seed, within: 64) : mutator.mutate(seed)
            try Data(input).write(to: URL(fileURLWithPath: path))
            guard let reader = try? open(path, limits: limits) else { continue }
            opened += 1
            var listed = 0
            while (try? reader.next()) != nil { listed += 1 }
            #expect(listed <= limits.members)
        }
        #expect(opened > 100)
    }
}
