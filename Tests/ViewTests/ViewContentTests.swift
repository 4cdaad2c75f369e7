import Foundation
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// Packages as tar files, passthrough bytes, extended attributes.
    @Suite struct Contents {
        let fixture = ViewFixture()

        @Test func packageTarExtractsToTheSameTree() throws {
            let view = try fixture.mount(languages: "de")
            let package = view.path("Applications/Schach")
            let sequential = try contents(package)
            #expect(Int64(sequential.count) == (try FileStatus.of(package)).size, "the size at stat is exact")
            let extracted = fixture.directory.appending("extracted")
            try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
            let tar = try Subprocess.run("/usr/bin/tar", ["-x", "-p", "-f", package, "-C", extracted])
            #expect(tar.status == 0, "\(tar)")
            let diff = try Subprocess.run("/usr/bin/diff", ["-r", "--no-dereference", fixture.tree.path("Applications/Chess.app"), Paths.join(extracted, "Chess.app")])
            #expect(diff.status == 0, "\(diff)")
            for relative in ["Contents/Resources/rules-link.html", "Contents/Resources/outside"] {
                let link = FileName(Paths.lastComponent(relative))
                let original = try Descriptor.open(fixture.tree.path("Applications/Chess.app/Contents/Resources"), flags: O_PATH_DIRECTORY).readLink(link)
                let copy = try Descriptor.open(Paths.join(extracted, "Chess.app/Contents/Resources"), flags: O_PATH_DIRECTORY).readLink(link)
                #expect(original == copy)
            }
            for (relative, mode) in [("Contents/Resources/private.txt", 0o600), ("Contents/MacOS/Chess", 0o755)] {
                #expect(try FileStatus.of(Paths.join(extracted, "Chess.app/" + relative)).permissions == UInt32(mode))
            }
            let original = try FileStatus.of(fixture.tree.path("Applications/Chess.app/Contents/Resources/big.bin"))
            #expect(try FileStatus.of(Paths.join(extracted, "Chess.app/Contents/Resources/big.bin")).modificationTime == original.modificationTime)

            // Reads at random offsets and sizes agree with the sequential read.
            let descriptor = try Descriptor.open(package, flags: Descriptor.readOnly)
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<300 {
                let offset = Int.random(in: 0..<sequential.count, using: &generator)
                let count = Int.random(in: 1...200_000, using: &generator)
                let bytes = try descriptor.read(at: Int64(offset), count: count)
                #expect(bytes[...] == sequential[offset..<min(sequential.count, offset + count)], "offset \(offset) count \(count)")
            }
        }

        @Test func packagesDescribeTheirBundleInAttributes() throws {
            let view = try fixture.mount(languages: "de")
            let dump = try Subprocess.run("/usr/bin/getfattr", ["-d", "--absolute-names", view.path("Applications/Schach")])
            #expect(dump.status == 0, "\(dump)")
            for line in ["user.bundle.identifier=\"org.example.chess\"", "user.bundle.kind=\"application\"", "user.bundle.version=\"2.0\"",
                         "user.bundle.real-name=\"Chess.app\"", "user.mime_type=\"application/x-tar\""] {
                #expect(dump.standardOutput.contains(line), "\(dump)")
            }
            // Real items pass their own through; security and system names are not supported.
            let note = try Subprocess.run("/usr/bin/getfattr", ["-n", "user.comment", "--only-values", view.path("Documents/notes.txt")])
            #expect(note.standardOutput == "a note", "\(note)")
            let selinux = try Subprocess.run("/usr/bin/getfattr", ["-n", "security.selinux", view.path("Documents/notes.txt")])
            #expect(selinux.standardError.contains("Operation not supported"), "\(selinux)")
        }

        @Test func passthroughIsIdentical() throws {
            let view = try fixture.mount(languages: "en")
            for relative in ["README.txt", "Documents/notes.txt", "Applications/Chess.app/Contents/Resources/big.bin",
                             "Applications/Chess.app/Contents/MacOS/Chess", "Library/Frameworks/Kit.framework/Versions/A/Kit"] {
                let real = try FileStatus.of(fixture.tree.path(relative))
                let seen = try FileStatus.of(view.path(relative))
                #expect(try contents(view.path(relative)) == contents(fixture.tree.path(relative)), "\(relative)")
                #expect(seen.size == real.size && seen.permissions == real.permissions && seen.type == real.type, "\(relative)")
                #expect(seen.modificationTime == real.modificationTime && seen.inode == real.inode, "\(relative)")
                #expect(seen.userID == real.userID && seen.groupID == real.groupID, "\(relative)")
            }
            let viewLinks = try Descriptor.open(view.path("Library/Frameworks/Kit.framework"), flags: O_PATH_DIRECTORY)
            #expect(try viewLinks.readLink("Resources") == "Versions/Current/Resources")
            #expect(try FileStatus.of(view.path("Library/Frameworks/Kit.framework/Resources")).type == .symlink)
            let find = try Subprocess.run("/usr/bin/find", [view.path("Library"), "-printf", "%P %y %m %s\n"])
            let native = try Subprocess.run("/usr/bin/find", [fixture.tree.path("Library"), "-printf", "%P %y %m %s\n"])
            #expect(find.standardOutput.split(separator: "\n").sorted() == native.standardOutput.split(separator: "\n").sorted())
        }
    }
}
