import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// Changes to the source show in the view without remounting; the view itself is read-only.
    @Suite struct Live {
        let fixture = ViewFixture()

        /// (SPEC's "within a second" is the benchmark's to time; the test waits for each change.)
        @Test func changesShowWithoutRemounting() throws {
            let view = try fixture.mount(languages: "de")
            #expect(try listing(view.path("Applications")) == ["Old", "Schach"])
            // A name looked up before it exists is cached as missing: creating it must undo that.
            #expect(throws: (any Error).self) { try FileStatus.of(view.path("Applications/Springer")) }
            #expect(throws: (any Error).self) { try FileStatus.of(view.path("Applications/Knight.app")) }

            var started = Date()
            fixture.tree.macApp("Applications/Knight.app", identifier: "org.example.knight", info: ["CFBundleName": .string("Knight")],
                                localizedStrings: ["de": ["CFBundleDisplayName": "Springer"]])
            try poll(timeout: 10, "the new app to be listed") { try listing(view.path("Applications")).contains("Springer") }
            let appeared = Date().timeIntervalSince(started)
            #expect(try FileStatus.of(view.path("Applications/Springer")).type == .regular)
            #expect(try FileStatus.of(view.path("Applications/Knight.app")).type == .directory)

            // A changed display name, a changed file, a removed app.
            started = Date()
            fixture.tree.file("Applications/Knight.app/Contents/Resources/de.lproj/InfoPlist.strings",
                              StringsEncoder.encode([("CFBundleDisplayName", "Pferd")], as: .utf8))
            try poll(timeout: 10, "the new display name") { try listing(view.path("Applications")) == ["Old", "Pferd", "Schach"] }
            #expect(throws: (any Error).self) { try FileStatus.of(view.path("Applications/Springer")) }
            let tarBefore = try FileStatus.of(view.path("Applications/Schach")).size
            fixture.tree.text("Documents/notes.txt", "notes, edited and longer\n")
            fixture.tree.text("Applications/Chess.app/Contents/Resources/added.txt", String(repeating: "x", count: 5000))
            try poll(timeout: 10, "the edited file") { try contents(view.path("Documents/notes.txt")) == Array("notes, edited and longer\n".utf8) }
            try poll(timeout: 10, "the package's new size") { try FileStatus.of(view.path("Applications/Schach")).size > tarBefore }
            fixture.tree.remove("Applications/Knight.app")
            try poll(timeout: 10, "the removed app to go") { try listing(view.path("Applications")) == ["Old", "Schach"] }
            let changed = Date().timeIntervalSince(started)
            print("view: new app listed after \(Int(appeared * 1000)) ms; four more changes in \(Int(changed * 1000)) ms")
        }

        /// Once a listing shows a new display name, lookups agree with it: the kernel's cached
        /// answers for the old name (found) and the new one (missing, looked up before) are gone
        /// before the new listing can be read. Renamed again and again, since the two are told to
        /// the kernel by different threads.
        @Test func aListingNeverShowsANameThatLookupsDoNotFind() throws {
            let view = try fixture.mount(languages: "de")
            fixture.tree.macApp("Applications/Knight.app", identifier: "org.example.knight", info: ["CFBundleName": .string("Knight")],
                                localizedStrings: ["de": ["CFBundleDisplayName": "Name0"]])
            let applications = view.path("Applications")
            try poll(timeout: 10, "the new app to be listed") { try listing(applications).contains("Name0") }
            for round in 1...40 {
                let old = "Name\(round - 1)", new = "Name\(round)"
                #expect(try FileStatus.of(view.path("Applications/\(old)")).type == .regular)
                #expect(throws: (any Error).self) { try FileStatus.of(view.path("Applications/\(new)")) }
                fixture.tree.file("Applications/Knight.app/Contents/Resources/de.lproj/InfoPlist.strings",
                                  StringsEncoder.encode([("CFBundleDisplayName", new)], as: .utf8))
                try poll(timeout: 10, "round \(round)'s display name") { try listing(applications).contains(new) }
                #expect(throws: (any Error).self, "round \(round): \(old) still found") { try FileStatus.of(view.path("Applications/\(old)")) }
                #expect((try? FileStatus.of(view.path("Applications/\(new)")))?.type == .regular, "round \(round): \(new) not found")
            }
        }

        // The kernel keeps directory listings itself (no OPENDIR reaches the daemon): listings it
        // already holds (for an hour, unless told) must still change, in the source, in a bundle's
        // raw contents, and in the `.bundlefs` directories made from the catalogue.
        @Test func cachedListingsChange() throws {
            let view = try fixture.mount(languages: "en")
            let contentsPath = view.path(".bundlefs/by-path/Applications/Chess.app/Contents/Resources")
            let rawBefore = try listing(contentsPath)
            let idsBefore = try listing(view.path(".bundlefs/by-id"))
            let byPathBefore = try listing(view.path(".bundlefs/by-path/Applications"))
            #expect(try listing(view.path("Documents")).contains("notes.txt"))
            // Read twice: the second listing comes from the kernel's cache.
            #expect(try listing(contentsPath) == rawBefore)
            #expect(!rawBefore.contains("added.txt") && !idsBefore.contains("org.example.knight"))

            fixture.tree.text("Applications/Chess.app/Contents/Resources/added.txt", "new\n")
            fixture.tree.macApp("Applications/Knight.app", identifier: "org.example.knight", info: ["CFBundleName": .string("Knight")])
            fixture.tree.remove("Documents/notes.txt")
            try poll(timeout: 10, "a file added in a bundle, by its real name") { try listing(contentsPath).contains("added.txt") }
            try poll(timeout: 10, "a new identifier in by-id") { try listing(view.path(".bundlefs/by-id")).contains("org.example.knight") }
            try poll(timeout: 10, "a new bundle in by-path") { try listing(view.path(".bundlefs/by-path/Applications")) == (byPathBefore + ["Knight.app"]).sorted() }
            try poll(timeout: 10, "a deleted file gone") { try !listing(view.path("Documents")).contains("notes.txt") }
            fixture.tree.remove("Applications/Knight.app")
            try poll(timeout: 10, "a removed identifier gone from by-id") { try !listing(view.path(".bundlefs/by-id")).contains("org.example.knight") }
        }

        @Test func everyWriteFailsWithEROFS() throws {
            let view = try fixture.mount(languages: "en")
            let file = view.path("Documents/notes.txt")
            func expectReadOnly(_ what: String, _ result: Int32) {
                let error = errno
                #expect(result == -1 && error == EROFS, "\(what): result \(result), errno \(error)")
            }
            expectReadOnly("open for writing", open(file, O_WRONLY))
            expectReadOnly("open read-write", open(file, O_RDWR))
            expectReadOnly("create", open(view.path("Documents/new.txt"), O_WRONLY | O_CREAT, 0o644))
            expectReadOnly("truncate", truncate(file, 0))
            expectReadOnly("mkdir", mkdir(view.path("Documents/new"), 0o755))
            expectReadOnly("rmdir", rmdir(view.path("Library/Frameworks")))
            expectReadOnly("unlink", unlink(file))
            expectReadOnly("unlink a package", unlink(view.path("Applications/Chess")))
            expectReadOnly("rename", rename(file, view.path("Documents/renamed.txt")))
            expectReadOnly("symlink", symlink("target", view.path("Documents/link")))
            expectReadOnly("link", link(file, view.path("Documents/hard")))
            expectReadOnly("mknod", mknod(view.path("Documents/fifo"), S_IFIFO | 0o644, 0))
            expectReadOnly("chmod", chmod(file, 0o777))
            expectReadOnly("chown", chown(file, 1, 1))
            expectReadOnly("utimes", utimensat(AT_FDCWD, file, nil, 0))
            for (what, change) in [("setxattr", { try ExtendedAttributes.set("user.x", to: [1], atPath: FilePath(file)) }),
                                   ("removexattr", { try ExtendedAttributes.remove("user.comment", atPath: FilePath(file)) })] as [(String, () throws -> Void)] {
                #expect(throws: SystemError.self, "\(what)") { try change() }
                do { try change() } catch let error as SystemError { #expect(error.errno == EROFS, "\(what): \(error)") }
            }
            #expect(try contents(fixture.tree.path("Documents/notes.txt")) == Array("notes\n".utf8), "the source is untouched")
        }

        @Test func aHundredThousandEntriesListCompletelyWithSeekdir() throws {
            let count = 100_000
            let big = fixture.tree.directory("Big")
            for index in 0..<count {
                let fd = open(Paths.join(big, "entry-\(index)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                close(fd)
            }
            let view = try fixture.mount(languages: "en")
            guard let directory = opendir(view.path("Big")) else {
                Issue.record("opendir: \(errno)")
                return
            }
            defer { closedir(directory) }
            var names: [String] = []
            var marks: [(position: Int, cookie: Int)] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                names.append(name)
                if names.count % 9973 == 0 { marks.append((names.count, telldir(directory))) }
            }
            #expect(names.count == count)
            #expect(Set(names).count == count)
            #expect(Set(names) == Set((0..<count).map { "entry-\($0)" }))
            // Seeking back to a position told earlier resumes at the same entry.
            for mark in marks.reversed() {
                seekdir(directory, mark.cookie)
                var resumed: [String] = []
                while resumed.count < 5, let entry = readdir(directory) {
                    resumed.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
                }
                #expect(resumed == Array(names[mark.position..<min(names.count, mark.position + 5)]), "after seekdir to \(mark.cookie)")
            }
        }
    }
}
