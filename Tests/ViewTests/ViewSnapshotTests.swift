import Fixtures
import Foundation
import PaxTar
import SystemCalls
import Testing
import TestSupport
@testable import View

extension MountedViewTests {
    /// A package's tar is a snapshot or an error (SPEC.md, "Never a wrong byte"): members that
    /// change under a read fail it with EIO, and the next open has the new tar within a second.
    @Suite struct Snapshots {
        let fixture = ViewFixture()
        static let member = "Applications/Tall.app/Contents/Resources/huge.bin"

        /// Writes a package with an 8 MiB member (far more than the kernel reads ahead), mounts,
        /// reads the first 64 KiB, applies `change`, and reads on: the read must fail with EIO.
        /// Then, within a second, a new open reads exactly the tar of the package as it is now.
        func expectEIO(after change: (String) throws -> Void, _ comment: String) throws {
            fixture.tree.macApp("Applications/Tall.app", identifier: "org.example.tall")
            fixture.tree.file(Self.member, pseudoRandomBytes(count: 8 << 20, seed: 3))
            let view = try fixture.mount(languages: "en")
            let package = view.path("Applications/Tall")
            let descriptor = try Descriptor.open(package, flags: Descriptor.readOnly)
            let sizeAtOpen = try descriptor.status().size
            var read = try descriptor.read(at: 0, count: 1 << 16)
            try change(fixture.tree.path(Self.member))
            var failure: Int32?
            while read.count < sizeAtOpen {
                do {
                    let chunk = try descriptor.read(at: Int64(read.count), count: 1 << 16)
                    if chunk.isEmpty { break }
                    read += chunk
                } catch let error as SystemError {
                    failure = error.errno
                    break
                }
            }
            #expect(failure == EIO, "\(comment): read \(read.count) of \(sizeAtOpen) bytes without an error")

            let now = try TarLayout(packagePath: FilePath(fixture.tree.path("Applications/Tall.app")))
            let expected = try now.read(offset: 0, count: Int(now.size), files: TarFileSource())
            try poll(timeout: 60, "the view to serve the changed package (\(comment))") {
                (try? FileStatus.of(package).size) == now.size && (try? contents(package)) == expected
            }
        }

        @Test func aMemberThatGrowsFailsTheRead() throws {
            try expectEIO(after: { path in
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(repeating: 1, count: 100_000))
                try handle.close()
            }, "grown")
        }

        @Test func aMemberThatShrinksFailsTheRead() throws {
            try expectEIO(after: { path in #expect(truncate(path, 4 << 20) == 0) }, "shrunk")
        }

        @Test func aMemberOverwrittenInPlaceFailsTheRead() throws {
            try expectEIO(after: { path in
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.seek(toOffset: 6 << 20)
                try handle.write(contentsOf: Data(repeating: 0xAB, count: 4096))
                try handle.close()
            }, "overwritten")
        }

        /// Localizations appear and go while the package is read again and again: every read is
        /// an error or a whole, valid tar of one moment's package, never a torn one.
        @Test func membersAddedAndRemovedNeverTearATar() throws {
            fixture.tree.macApp("Applications/Churn.app", identifier: "org.example.churn")
            fixture.tree.file("Applications/Churn.app/Contents/Resources/data.bin", pseudoRandomBytes(count: 300_000, seed: 5))
            let view = try fixture.mount(languages: "en")
            let package = view.path("Applications/Churn")
            let resources = fixture.tree.path("Applications/Churn.app/Contents/Resources")
            let stop = SharedFlag()
            // Each localization comes and goes whole (renamed in and out), so every moment's
            // package is a valid one.
            let staging = fixture.directory.appending("staging")
            let churn = Thread {
                var round = 0
                while !stop.value {
                    let name = "l\(round % 7).lproj"
                    let (inside, outside) = (Paths.join(resources, name), Paths.join(staging, name))
                    if FileManager.default.fileExists(atPath: inside) {
                        _ = rename(inside, outside)
                        removeTree(outside)
                    } else {
                        try? FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
                        _ = FileManager.default.createFile(atPath: Paths.join(outside, "Localizable.strings"), contents: Data("l\(round % 7)\n".utf8))
                        _ = rename(outside, inside)
                    }
                    round += 1
                    usleep(20_000)
                }
            }
            churn.start()
            defer { stop.value = true }

            var (whole, failed) = (0, 0)
            let archive = fixture.directory.appending("churn.tar")
            // Twelve whole reads while the package changes (a round every 20 ms, several per
            // read), however long a busy machine makes them; failed reads are counted too, but
            // must not be all there is.
            while whole < 12 && failed < 1_000 {
                let bytes: [UInt8]
                let size: Int64
                do {
                    let descriptor = try Descriptor.open(package, flags: Descriptor.readOnly)
                    size = try descriptor.status().size
                    var read: [UInt8] = []
                    while true {
                        let chunk = try descriptor.read(at: Int64(read.count), count: 1 << 17)
                        if chunk.isEmpty { break }
                        read += chunk
                    }
                    bytes = read
                } catch let error as SystemError where error.errno == EIO || error.errno == ENOENT {
                    failed += 1
                    continue
                }
                whole += 1
                #expect(Int64(bytes.count) == size, "a read is as long as the size at its open")
                _ = FileManager.default.createFile(atPath: archive, contents: Data(bytes))
                let extracted = fixture.directory.appending("churn-\(whole)")
                try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
                let tar = try Subprocess.run("/usr/bin/tar", ["-x", "-f", archive, "-C", extracted])
                #expect(tar.status == 0, "\(tar)")
                let copy = Paths.join(extracted, "Churn.app/Contents/Resources")
                #expect(FileManager.default.contents(atPath: Paths.join(copy, "data.bin")) == Data(pseudoRandomBytes(count: 300_000, seed: 5)))
                for name in (try? FileManager.default.contentsOfDirectory(atPath: copy)) ?? [] where name.hasSuffix(".lproj") {
                    let strings = FileManager.default.contents(atPath: Paths.join(copy, name + "/Localizable.strings"))
                    #expect(strings == Data((name.dropLast(6) + "\n").utf8), "\(name) is whole")
                }
                removeTree(extracted)
            }
            stop.value = true
            while churn.isExecuting || !churn.isFinished { usleep(1000) }
            #expect(whole == 12, "\(whole) whole reads, \(failed) failed")
        }
    }
}

/// A flag shared with a thread.
private final class SharedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
