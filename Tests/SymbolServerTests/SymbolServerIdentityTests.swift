import BundleModel
import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 37: only the file the catalogue recorded is served. Someone who can write one bundle
/// folder swaps its executable for something else between two reads of the watcher (here: no
/// watcher runs, so the window stays open); the server must answer 404 and say why in its log,
/// never serve the other file.
@Suite struct SymbolServerIdentityTests {
    /// Ways to put another file where a catalogued executable was.
    enum Swap: String, CaseIterable, CustomTestStringConvertible {
        /// The executable becomes a symlink to a root-only file elsewhere in the root.
        case fileSymlink
        /// The bundle directory becomes a symlink to a directory holding a file at the same path.
        case bundleSymlink
        /// The executable becomes a hard link to a root-only file.
        case hardLink
        /// The executable is rewritten in place: the same inode and size, another time.
        case sameSizeRewrite

        var testDescription: String { rawValue }
    }

    static let secret = Array("the root-only secret, 32 bytes!!".utf8)

    /// Puts another file in the place of `Build/Tool.app/Contents/MacOS/Tool`.
    static func swap(_ swap: Swap, in fixture: SymbolStoreFixture) throws {
        let tree = fixture.tree
        let executable = "Build/Tool.app/Contents/MacOS/Tool"
        switch swap {
        case .fileSymlink:
            tree.file("Private/secret.txt", secret, mode: 0o600)
            tree.remove(executable)
            tree.symlink(executable, to: "../../../../Private/secret.txt")
        case .bundleSymlink:
            tree.file("Private/Tool.app/Contents/MacOS/Tool", secret, mode: 0o600)
            tree.rename("Build/Tool.app", "Build/Old.app")
            tree.symlink("Build/Tool.app", to: "../Private/Tool.app")
        case .hardLink:
            tree.file("Private/secret.bin", secret, mode: 0o600)
            tree.remove(executable)
            #expect(link(tree.path("Private/secret.bin"), tree.path(executable)) == 0)
        case .sameSizeRewrite:
            let before = try FileStatus.of(FilePath(tree.path(executable)))
            var bytes = try fixture.bytes(executable)
            bytes.replaceSubrange(bytes.count - secret.count..<bytes.count, with: secret)
            tree.file(executable, bytes, mode: 0o755)
            try setModificationTime(tree.path(executable), before.modificationTime + 1_000_000_000)
            let after = try FileStatus.of(FilePath(tree.path(executable)))
            #expect(after.inode == before.inode && after.size == before.size && after.modificationTime != before.modificationTime)
        }
    }

    @Test(arguments: Swap.allCases)
    func anExecutableSwappedSinceItWasIndexedIsNotServed(_ swap: Swap) throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let executable = server.url + "/buildid/\(fixture.machOKey)/executable"
        try Self.swap(swap, in: fixture)

        let answer = try curl(executable)
        #expect(answer.status == 404, "\(swap): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        #expect(!Self.contains(answer.body, Self.secret))
        // As symbolicator asks for it: the same file, the same answer.
        let key = fixture.machOKey.uppercased()
        let native = stride(from: 0, to: 20, by: 4).map { String(key.dropFirst($0).prefix(4)) }.joined(separator: "/") + "/" + key.suffix(12)
        #expect(try curl(server.url + "/native/\(native).app").status == 404, "\(swap): native layout")
        // One line says which file changed since it was indexed.
        try poll(timeout: 10, "the refusal in the log:\n\(server.log)") {
            server.log.contains("Build/Tool.app/Contents/MacOS/Tool: not served: changed since it was indexed")
        }
        // The dSYM, untouched, is still served.
        #expect(try curl(server.url + "/buildid/\(fixture.machOKey)/debuginfo").body == fixture.bytes("Build/Tool.app.dSYM/Contents/Resources/DWARF/Tool"))
    }

    /// A legitimate rebuild is not served until it is read again, and then it is: the watcher's
    /// start reads the changed bundle again and records the new file.
    @Test func aRebuiltExecutableIsServedOnceTheWatcherHasReadIt() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let url = server.url + "/buildid/\(fixture.machOKey)/executable"
        #expect(try curl(url).body == fixture.bytes("Build/Tool.app/Contents/MacOS/Tool"))
        // Rebuilt as a linker writes it: a new file (the same UUID, other bytes) renamed into place.
        let rebuilt = MachOImage.arm64(uuid: fixture.machOUUID)
        fixture.tree.file("Build/Tool.app/Contents/MacOS/Tool.new", rebuilt.bytes(), mode: 0o755)
        fixture.tree.rename("Build/Tool.app/Contents/MacOS/Tool.new", "Build/Tool.app/Contents/MacOS/Tool")
        #expect(try curl(url).status == 404)

        let watcher = try WatcherProcess(roots: [fixture.tree.root], catalogue: fixture.catalogue, logFile: fixture.temporary.appending("watch.log"))
        try watcher.waitUntilWatching()
        try poll(timeout: 30, "the rebuilt executable to be served:\n\(server.log)") { try curl(url).body == rebuilt.bytes() }
        // The catalogue holds the file as read now.
        let now = try FileStatus.of(FilePath(fixture.tree.path("Build/Tool.app/Contents/MacOS/Tool")))
        let catalogue = try Catalogue(path: FilePath(fixture.catalogue), mode: .readOnly)
        let match = try #require(try catalogue.symbolMatches(uuidKey: fixture.machOKey).first { !$0.isDSYM })
        #expect(match.slice.onDisk == BinarySlice.DiskFile(path: "Contents/MacOS/Tool", status: now))
        // A later rewrite in place is noticed by the running watcher, and served once read.
        var again = MachOImage.arm64(uuid: fixture.machOUUID)
        again.bodySize = 128
        fixture.tree.file("Build/Tool.app/Contents/MacOS/Tool", again.bytes(), mode: 0o755)
        try poll(timeout: 30, "the rewritten executable to be served:\n\(server.log)") { try curl(url).body == again.bytes() }
        // A bundle renamed keeps its slices' rows, and the file recorded is still the one there.
        fixture.tree.rename("Build/Tool.app", "Build/Renamed.app")
        try waitForConvergence(catalogue: fixture.catalogue, root: fixture.tree.root)
        #expect(try curl(url).body == again.bytes())
    }

    /// A framework's executable is reached through its `Versions/Current` link and the top-level
    /// link: the catalogue records the file those led to when it was read, and the server opens
    /// that file, following no link at all.
    @Test func aFrameworksExecutableIsServedThroughTheLinksTheIndexFollowed() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let uuid = MachOImage.uuid(seed: 64)
        var library = MachOImage.arm64(uuid: uuid)
        library.fileType = 6
        let tree = fixture.tree
        tree.plist("Library/Kit.framework/Versions/A/Resources/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.kit"), "CFBundlePackageType": .string("FMWK"), "CFBundleExecutable": .string("Kit"),
        ]))
        tree.file("Library/Kit.framework/Versions/A/Kit", library.bytes(), mode: 0o755)
        tree.symlink("Library/Kit.framework/Versions/Current", to: "A")
        tree.symlink("Library/Kit.framework/Kit", to: "Versions/Current/Kit")
        tree.symlink("Library/Kit.framework/Resources", to: "Versions/Current/Resources")
        #expect(try Subprocess.bundlefs(["index", tree.root], catalogue: fixture.catalogue).status == 0)
        let key = uuid.map { String(format: "%02x", $0) }.joined()
        let catalogue = try Catalogue(path: FilePath(fixture.catalogue), mode: .readOnly)
        let match = try #require(try catalogue.symbolMatches(uuidKey: key).first)
        #expect(match.slice.onDisk?.path == "Versions/A/Kit")
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        #expect(try curl(server.url + "/buildid/\(key)/executable").body == library.bytes())
        // The link the index followed, pointed elsewhere, changes nothing until it is read again.
        tree.file("Library/Kit.framework/Versions/B/Kit", Self.secret, mode: 0o600)
        tree.remove("Library/Kit.framework/Versions/Current")
        tree.symlink("Library/Kit.framework/Versions/Current", to: "B")
        #expect(try curl(server.url + "/buildid/\(key)/executable").body == library.bytes())
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}

/// Sets a file's access and modification times (ns since the epoch).
func setModificationTime(_ path: String, _ nanoseconds: Int64) throws {
    let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    var times = [time, time]
    guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw SystemError.last("utimensat", path: path) }
}
