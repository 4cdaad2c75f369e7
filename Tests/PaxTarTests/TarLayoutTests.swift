import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
@testable import PaxTar

@Suite struct TarLayoutTests {
    let temporary = TemporaryDirectory("tar")

    func writePackage() -> TreeWriter {
        let tree = TreeWriter(root: temporary.appending("source"))
        tree.macApp("Chess.app", identifier: "com.example.chess", localizedStrings: ["de": ["CFBundleDisplayName": "Schach"]])
        tree.file("Chess.app/Contents/Resources/big.bin", (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        tree.text("Chess.app/Contents/Resources/empty.txt", "")
        tree.text("Chess.app/Contents/Resources/" + String(repeating: "long-name-", count: 15) + ".txt", "long name")
        tree.text("Chess.app/Contents/Resources/Ünïcödé ♞.txt", "unicode")
        tree.text(FileNameCoding.string(from: Array("Chess.app/Contents/Resources/latin".utf8) + [0xE9] + Array(".txt".utf8)), "not utf-8")
        tree.text("Chess.app/Contents/Resources/private.txt", "secret", mode: 0o600)
        tree.symlink("Chess.app/Contents/Resources/link.txt", to: "empty.txt")
        tree.symlink("Chess.app/Contents/Resources/dangling", to: "../nowhere")
        tree.symlink("Chess.app/Contents/Resources/absolute", to: "/etc/hostname")
        tree.fifo("Chess.app/Contents/Resources/pipe")
        tree.directory("Chess.app/Contents/Resources/Empty Folder")
        // A nanosecond mtime, which the pax header must carry exactly.
        var times = [timespec(tv_sec: 1_234_567_890, tv_nsec: 1), timespec(tv_sec: 1_234_567_890, tv_nsec: 123_456_789)]
        _ = tree.path("Chess.app/Contents/Info.plist").withCString { utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) }
        return tree
    }

    @Test func extractsToAnIdenticalTree() throws {
        let tree = writePackage()
        let layout = try TarLayout(packagePath: FilePath(tree.path("Chess.app")))
        let files = TarFileSource()
        let whole = try layout.read(offset: 0, count: Int(layout.size), files: files)
        #expect(Int64(whole.count) == layout.size)
        #expect(layout.size % 512 == 0)
        let archive = temporary.appending("Chess.tar")
        _ = FileManager.default.createFile(atPath: archive, contents: Data(whole))
        let extracted = temporary.appending("extracted")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
        let untar = try Subprocess.run("/usr/bin/tar", ["-x", "-p", "-f", archive, "-C", extracted])
        #expect(untar.status == 0, "\(untar)")
        // diff cannot compare FIFOs (it reports two FIFOs as a difference); the FIFO is checked below.
        let diff = try Subprocess.run("/usr/bin/diff", ["-r", "--no-dereference", "-x", "pipe", tree.path("Chess.app"), Paths.join(extracted, "Chess.app")])
        #expect(diff.status == 0, "\(diff)")
        // What diff does not compare: link targets, modes, nanosecond times, the FIFO.
        for relative in ["Contents/Resources/link.txt", "Contents/Resources/dangling", "Contents/Resources/absolute"] {
            let original = try Descriptor.open(tree.path("Chess.app/Contents/Resources"), flags: O_PATH_DIRECTORY).readLink(FileName(Paths.lastComponent(relative)))
            let copy = try Descriptor.open(Paths.join(extracted, "Chess.app/Contents/Resources"), flags: O_PATH_DIRECTORY).readLink(FileName(Paths.lastComponent(relative)))
            #expect(original == copy)
        }
        let original = try FileStatus.of(tree.path("Chess.app/Contents/Info.plist"))
        let copy = try FileStatus.of(Paths.join(extracted, "Chess.app/Contents/Info.plist"))
        #expect(copy.modificationTime == original.modificationTime)
        #expect(try FileStatus.of(Paths.join(extracted, "Chess.app/Contents/Resources/private.txt")).permissions == 0o600)
        #expect(try FileStatus.of(Paths.join(extracted, "Chess.app/Contents/MacOS/Chess")).permissions == 0o755)
        #expect(try FileStatus.of(Paths.join(extracted, "Chess.app/Contents/Resources/pipe")).type == .fifo)
        // GNU tar's own listing agrees on every member.
        let listing = try Subprocess.run("/usr/bin/tar", ["-t", "-f", archive])
        #expect(listing.standardOutput.split(separator: "\n").count == layout.members.count)
    }

    @Test func readsAtAnyOffsetMatchTheSequentialStream() throws {
        let tree = writePackage()
        let layout = try TarLayout(packagePath: FilePath(tree.path("Chess.app")))
        let files = TarFileSource()
        let whole = try layout.read(offset: 0, count: Int(layout.size), files: files)
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<2000 {
            let offset = Int64.random(in: 0..<layout.size, using: &generator)
            let count = Int.random(in: 1...70_000, using: &generator)
            let piece = try layout.read(offset: offset, count: count, files: files)
            let expected = whole[Int(offset)..<min(whole.count, Int(offset) + count)]
            #expect(piece == Array(expected), "offset \(offset) count \(count)")
        }
        #expect(try layout.read(offset: layout.size, count: 10, files: files).isEmpty)
    }

    @Test func paxRecordLengthsCountThemselves() {
        // "9 a=bcd\n" is nine bytes; lengths that cross a power of ten are the tricky ones.
        for length in 1..<300 {
            let record = TarHeaders.record("k", Array(String(repeating: "v", count: length).utf8))
            let declared = Int(String(decoding: record.prefix { $0 != 0x20 }, as: UTF8.self))
            #expect(declared == record.count)
        }
    }

    /// A package written by a Mac over Samba: Finder info and a resource fork as `user.*` xattrs,
    /// and a file linked twice. GNU tar restores both from the archive.
    @Test func hardLinksAndUserAttributesSurviveExtraction() throws {
        let tree = writePackage()
        let finderInfo: [UInt8] = Array("APPLmacs".utf8) + [UInt8](repeating: 0, count: 24)
        let resourceFork = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 31) } // binary, with NULs
        tree.setAttribute("Chess.app/Contents/Info.plist", name: "user.com.apple.FinderInfo", value: finderInfo)
        tree.setAttribute("Chess.app/Contents/Resources/big.bin", name: "user.com.apple.ResourceFork", value: resourceFork)
        tree.setAttribute("Chess.app/Contents/Resources", name: "user.note", value: Array("on a directory".utf8))
        #expect(link(tree.path("Chess.app/Contents/Resources/big.bin"), tree.path("Chess.app/Contents/Resources/zz-second-link.bin")) == 0)
        let layout = try TarLayout(packagePath: FilePath(tree.path("Chess.app")))
        #expect(layout.members.filter { $0.kind == .hardLink }.count == 1)
        let archive = temporary.appending("Chess.tar")
        _ = FileManager.default.createFile(atPath: archive, contents: Data(try layout.read(offset: 0, count: Int(layout.size), files: TarFileSource())))
        let extracted = temporary.appending("extracted")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
        let untar = try Subprocess.run("/usr/bin/tar", ["--xattrs", "--xattrs-include=user.*", "-x", "-p", "-f", archive, "-C", extracted])
        #expect(untar.status == 0, "\(untar)")

        let copy = FilePath(Paths.join(extracted, "Chess.app"))
        let first = try FileStatus.of(copy.appending("Contents/Resources/big.bin"))
        let second = try FileStatus.of(copy.appending("Contents/Resources/zz-second-link.bin"))
        #expect(first.inode == second.inode && first.linkCount == 2, "the two names are one file again")
        #expect(try ExtendedAttributes.value("user.com.apple.FinderInfo", atPath: copy.appending("Contents/Info.plist")) == finderInfo)
        #expect(try ExtendedAttributes.value("user.com.apple.ResourceFork", atPath: copy.appending("Contents/Resources/big.bin")) == resourceFork)
        #expect(try ExtendedAttributes.value("user.note", atPath: copy.appending("Contents/Resources")) == Array("on a directory".utf8))
    }
}
