import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// The kernel opens the view's files itself (`no_open`) and keeps their pages across opens:
    /// what it keeps must still change within a second when SOURCE does, and a file open across a
    /// change must read as it did natively.
    @Suite struct PageCache {
        let fixture = ViewFixture()

        /// Each path read twice (the second time from the kernel's pages), changed in SOURCE in
        /// place, then read again: the new bytes and size within a second.
        @Test func changedFilesShowNewBytesAfterTheyWereCached() throws {
            let view = try fixture.mount(languages: "en")
            let notes = view.path("Documents/notes.txt")
            let raw = view.path(".bundlefs/by-path/Applications/Chess.app/Contents/Resources/board.png")
            let resolved = view.path(".bundlefs/by-id/org.example.kit/Resources/kit.txt")
            fixture.tree.text("Library/Frameworks/Kit.framework/Resources/kit.txt", "kit v1\n")
            try poll(timeout: 60, "the new resource") { (try? contents(resolved)) == Array("kit v1\n".utf8) }
            for path in [notes, raw, resolved] {
                let first = try contents(path)
                #expect(try contents(path) == first, "\(path) reads the same twice")
            }
            // Same length, other bytes: the kernel cannot tell from the size alone.
            fixture.tree.text("Documents/notes.txt", "NOTES\n")
            fixture.tree.text("Applications/Chess.app/Contents/Resources/board.png", "board, now longer than before\n")
            fixture.tree.text("Library/Frameworks/Kit.framework/Resources/kit.txt", "kit v2, longer\n")
            for (path, expected) in [(notes, "NOTES\n"), (raw, "board, now longer than before\n"), (resolved, "kit v2, longer\n")] {
                try poll(timeout: 60, "\(path) to show its new bytes") {
                    (try? contents(path)) == Array(expected.utf8) && (try? FileStatus.of(path).size) == Int64(expected.utf8.count)
                }
            }
        }

        /// The effective Info.plist is made from the catalogue, with the source root's times: a
        /// change that keeps its size must still reach a reader whose pages the kernel kept.
        @Test func aChangedInfoPlistShowsAfterItWasCached() throws {
            let view = try fixture.mount(languages: "en")
            let info = view.path(".bundlefs/by-id/org.example.kit/Info.plist")
            func write(_ copyright: String) {
                fixture.tree.plist("Library/Frameworks/Kit.framework/Versions/A/Resources/Info.plist", .dictionary([
                    "CFBundleIdentifier": .string("org.example.kit"), "CFBundlePackageType": .string("FMWK"),
                    "CFBundleExecutable": .string("Kit"), "NSHumanReadableCopyright": .string(copyright),
                ]))
            }
            write("first")
            try poll(timeout: 60, "the first copyright") { (try? contents(info)).map { String(decoding: $0, as: UTF8.self).contains("first") } ?? false }
            let before = try contents(info)
            #expect(try contents(info) == before)
            write("FIRST")
            try poll(timeout: 60, "the same-sized change to show") {
                guard let now = try? contents(info) else { return false }
                return String(decoding: now, as: UTF8.self).contains("FIRST") && now.count == before.count
            }
        }

        /// A file replaced in SOURCE (written aside and renamed over) while open in the view: the
        /// open file reads on as it was, as it would natively, and a new open reads the new file.
        @Test func aFileOpenBeforeAReplaceReadsAsItWas() throws {
            let old = pseudoRandomBytes(count: 4 << 20, seed: 11)
            let new = pseudoRandomBytes(count: 3 << 20, seed: 12)
            fixture.tree.file("Documents/big.bin", old)
            let view = try fixture.mount(languages: "en")
            let descriptor = try Descriptor.open(view.path("Documents/big.bin"), flags: Descriptor.readOnly)
            var read = try descriptor.read(at: 0, count: 1 << 16)

            fixture.tree.file("Documents/big.bin.new", new)
            #expect(rename(fixture.tree.path("Documents/big.bin.new"), fixture.tree.path("Documents/big.bin")) == 0)
            try poll(timeout: 60, "a new open to read the new file") { (try? contents(view.path("Documents/big.bin"))) == new }

            while true {
                let chunk = try descriptor.read(at: Int64(read.count), count: 1 << 16)
                if chunk.isEmpty { break }
                read += chunk
            }
            #expect(read.count == old.count && read == old, "the open file read \(read.count) bytes of the old one")
            #expect(try descriptor.status().size == Int64(old.count))
        }

        /// After the first open (answered ENOSYS), opening and closing files costs the daemon no
        /// request, and a file read before is read again from the kernel's pages.
        @Test func filesAreOpenedByTheKernel() throws {
            let view = try fixture.mount(languages: "en")
            let files = ["README.txt", "Documents/notes.txt", "Applications/Chess", ".bundlefs/by-id/org.example.chess/Info.plist"]
            var first: [String: [UInt8]] = [:]
            for file in files { first[file] = try contents(view.path(file)) }
            let before = try requestCounts(view)
            for _ in 0..<3 {
                for file in files { #expect(try contents(view.path(file)) == first[file], "\(file)") }
            }
            let after = try requestCounts(view)
            for kind in ["open", "release", "read"] {
                #expect(after[kind]! - before[kind]! == 0, "\(kind): \(after[kind]! - before[kind]!) requests for 12 reads of cached files")
            }
        }

        /// More files read than the daemon keeps open: it closes the least recently read, and every
        /// file still reads whole.
        @Test func theDaemonKeepsABoundedNumberOfFilesOpen() throws {
            let count = 700
            for index in 0..<count { fixture.tree.text("Many/file-\(index).txt", "file \(index)\n") }
            let view = try fixture.mount(languages: "en")
            for index in 0..<count {
                #expect(try contents(view.path("Many/file-\(index).txt")) == Array("file \(index)\n".utf8))
            }
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(view.process.processIdentifier)/fd").count
            #expect(descriptors < 400, "the daemon holds \(descriptors) descriptors after reading \(count) files")
        }
    }
}

/// The daemon's requests by kind, from `MNT/.bundlefs`.
func requestCounts(_ view: MountedView) throws -> [String: Int] {
    let bytes = try #require(try ExtendedAttributes.value("user.bundlefs.requests", atPath: FilePath(view.path(".bundlefs"))))
    var counts: [String: Int] = [:]
    for pair in String(decoding: bytes, as: UTF8.self).split(separator: " ") {
        let parts = pair.split(separator: "=")
        counts[String(parts[0])] = Int(parts[1])
    }
    return counts
}
