import Archives
import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// The archive reader on archives made by other tools (Python's zipfile, GNU tar with each
/// compressor, bsdtar), including hostile ones: everything bounded, nothing written.
@Suite struct ArchiveReaderTests {
    let temporary = TemporaryDirectory("archives")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }

    /// A small tree: an app with a Mach-O executable and localized names (an NFD one included).
    func writeTree() {
        tree.machOApp("Payload/Chess.app", identifier: "org.example.chess", executable: MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 51)), .arm64(uuid: MachOImage.uuid(seed: 52))]))
        tree.strings("Payload/Chess.app/Contents/Resources/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Schach"])
        tree.text("Payload/Chess.app/Contents/Resources/Re\u{0301}sume\u{0301}.txt", "nfd\n")
    }

    func list(_ path: String, limits: ArchiveLimits = .standard) throws -> (members: [ArchiveMember], reader: ArchiveReader) {
        let reader = try ArchiveReader(try Descriptor.open(FilePath(path), flags: Descriptor.readOnly), limits: limits)
        var members: [ArchiveMember] = []
        while let member = try reader.next() { members.append(member) }
        return (members, reader)
    }

    func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws {
        let result = try Subprocess.run(executable, arguments, directory: directory)
        try #require(result.status == 0, "\(executable) \(arguments): \(result)")
    }

    /// Runs a Python script with `zipfile` and `os` at hand.
    func python(_ script: String) throws {
        try run("/usr/bin/python3", ["-c", ["import", "os,", "zipfile"].joined(separator: " ") + "\n" + script])
    }

    @Test func everyFormatListsTheSameMembersAndData() throws {
        writeTree()
        let archives = temporary.appending("out")
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        try python("""
            root = '\(tree.root)'
            with zipfile.ZipFile('\(archives)/Chess.ipa', 'w', zipfile.ZIP_DEFLATED) as z:
                for base, dirs, files in os.walk(root):
                    for name in sorted(dirs + files):
                        full = os.path.join(base, name)
                        z.write(full, os.path.relpath(full, root))
            """)
        for (name, flag) in [("Chess.tar.gz", "-z"), ("Chess.tar.xz", "-J"), ("Chess.tar.bz2", "-j"), ("Chess.tar.zst", "--zstd"), ("Chess.tar", "")] {
            try run("/bin/tar", ["-c"] + (flag.isEmpty ? [] : [flag]) + ["-f", Paths.join(archives, name), "-C", tree.root, "Payload"])
        }
        try run("/usr/bin/bsdtar", ["-c", "--format", "cpio", "-f", Paths.join(archives, "Chess.cpio"), "-C", tree.root, "Payload"])
        let infoPath = "Payload/Chess.app/Contents/Info.plist"
        let info = try ScanRoot(path: FilePath(tree.root)).readRegularFile(FilePath(infoPath), limit: 1 << 20).bytes
        var formats: [String] = []
        for name in ["Chess.ipa", "Chess.tar.gz", "Chess.tar.xz", "Chess.tar.bz2", "Chess.tar.zst", "Chess.tar", "Chess.cpio"] {
            let reader = try ArchiveReader(try Descriptor.open(FilePath(Paths.join(archives, name)), flags: Descriptor.readOnly))
            var files: [FilePath: Int64] = [:]
            var readInfo: [UInt8]?
            var slices: [BinarySlice] = []
            while let member = try reader.next() {
                if member.type == .regular { files[member.path] = member.size }
                if member.path == FilePath(infoPath) { readInfo = try reader.read(limit: 1 << 20) }
                if member.path == "Payload/Chess.app/Contents/MacOS/Chess" {
                    slices = BinaryReader.read(reader.memberSource(), file: "Contents/MacOS/Chess").slices
                }
            }
            formats.append(reader.formatName)
            #expect(readInfo == info, "\(name)")
            // Tar keeps a name's bytes; libarchive gives a zip's UTF-8 names in NFC (Docs/archives.md).
            let expectedName = name.hasSuffix(".ipa") ? "Payload/Chess.app/Contents/Resources/R\u{E9}sum\u{E9}.txt" : "Payload/Chess.app/Contents/Resources/Re\u{0301}sume\u{0301}.txt"
            #expect(files[FilePath(expectedName)] == 4, "\(name): \(files.keys.map { Array($0.string.unicodeScalars) })")
            #expect(files.count == 4, "\(name): \(files.keys.map(\.string))")
            #expect(slices.compactMap(\.uuid) == [51, 52].map { BinarySlice.canonicalUUID(MachOImage.uuid(seed: $0)) }, "\(name)")
        }
        #expect(Set(formats).count >= 3, "\(formats)")
    }

    /// A universal file whose second slice lies far past the first (as real ones do): its headers
    /// are read forward through the stream, each structure once.
    @Test func slicesFarApartReadThroughTheStream() throws {
        var arm = MachOImage.arm64(uuid: MachOImage.uuid(seed: 55))
        arm.signature = ("com.example.far", "TEAM000055")
        var intel = MachOImage.x86_64(uuid: MachOImage.uuid(seed: 54))
        intel.bodySize = 300_000
        tree.file("Payload/Far.app/Contents/MacOS/Far", MachOImage.universal([intel, arm], alignment: 1 << 14), mode: 0o755)
        let zip = temporary.appending("far.zip")
        try run("/usr/bin/zip", ["-qr", zip, "Payload"], in: tree.root)
        let reader = try ArchiveReader(try Descriptor.open(FilePath(zip), flags: Descriptor.readOnly))
        var result: BinaryReader.Result?
        while let member = try reader.next() { if member.type == .regular { result = BinaryReader.read(reader.memberSource(), file: "Far") } }
        #expect(result?.errors == [])
        #expect(result?.slices.map(\.arch) == ["x86_64", "arm64"])
        #expect(result?.slices.last?.teamIdentifier == "TEAM000055")
    }

    @Test func aZipBombStopsAtItsRatio() throws {
        let path = temporary.appending("bomb.zip")
        try python("""
            with zipfile.ZipFile('\(path)', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('Payload/Bomb.app/Info.plist', b'\\0' * (64 << 20))
            """)
        let size = try FileStatus.of(path).size
        let (listed, reader) = try list(path)
        #expect(listed.count == 1)
        // Listing costs nothing; reading the member is where the bomb goes off, and is stopped.
        let again = try ArchiveReader(try Descriptor.open(FilePath(path), flags: Descriptor.readOnly))
        _ = try again.next()
        let error = #expect(throws: ArchiveError.self) { _ = try again.read(limit: 64 << 20) }
        #expect(error?.description.contains("-fold compression") == true, "\(String(describing: error))")
        #expect(size < 1 << 20 && reader.membersListed == 1)
    }

    @Test func climbingAndAbsoluteNamesAreOnlyData() throws {
        let path = temporary.appending("names.zip")
        try python("""
            with zipfile.ZipFile('\(path)', 'w') as z:
                z.writestr('../../etc/passwd', 'root:x:0:0')
                z.writestr('/abs/Info.plist', 'x')
                z.writestr('ok/./file.txt', 'y')
            """)
        let (listed, reader) = try list(path)
        #expect(listed.map(\.path.string) == ["abs/Info.plist", "ok/file.txt"])
        #expect(reader.unsafeNames == 1)
        // Nothing was written anywhere: the names were never paths.
        #expect((try? FileStatus.of(temporary.appending("etc"))) == nil)
    }

    /// A tar lists its members one header at a time: listing stops at the limit. (A zip is refused
    /// before listing, from its central directory: ZipDirectoryTests.)
    @Test func tooManyMembersStopAtTheLimit() throws {
        let path = temporary.appending("many.tar")
        try python(["import", "io,", "tarfile"].joined(separator: " ") + """

            with tarfile.open('\(path)', 'w') as t:
                for i in range(2000):
                    t.addfile(tarfile.TarInfo('m/%d' % i), io.BytesIO())
            """)
        var limits = ArchiveLimits.standard
        limits.members = 1000
        let reader = try ArchiveReader(try Descriptor.open(FilePath(path), flags: Descriptor.readOnly), limits: limits)
        var listed = 0
        let error = #expect(throws: ArchiveError.self) { while try reader.next() != nil { listed += 1 } }
        #expect(listed == 1000)
        #expect(error?.description.contains("more than 1000 members") == true)
    }

    @Test func truncatedEncryptedAndLyingArchivesAreErrors() throws {
        writeTree()
        let zip = temporary.appending("whole.zip")
        try run("/usr/bin/zip", ["-qr", zip, "Payload"], in: tree.root)
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: zip)))
        let truncated = temporary.appending("truncated.zip")
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: truncated))
        #expect(throws: ArchiveError.self) {
            let reader = try ArchiveReader(try Descriptor.open(FilePath(truncated), flags: Descriptor.readOnly))
            while let member = try reader.next() { if member.type == .regular { _ = try reader.read(limit: 1 << 20) } }
        }

        let encrypted = temporary.appending("encrypted.zip")
        try run("/usr/bin/zip", ["-qr", "-P", "secret", encrypted, "Payload"], in: tree.root)
        let (listed, _) = try list(encrypted)
        let files = listed.filter { $0.type == .regular }
        #expect(!files.isEmpty && files.allSatisfy { $0.isEncrypted })
        let reader = try ArchiveReader(try Descriptor.open(FilePath(encrypted), flags: Descriptor.readOnly))
        while let member = try reader.next(), member.type != .regular {}
        #expect(throws: ArchiveError.self) { _ = try reader.read(limit: 1024) }

        // A tar header claiming a member far larger than the archive.
        let tar = temporary.appending("lying.tar")
        try run("/bin/tar", ["-cf", tar, "-C", tree.root, "Payload"])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tar)))
        let claimed = Array(String(format: "%011o", 0o77777777777 as Int).utf8)
        bytes.replaceSubrange(124..<135, with: claimed) // the first header's size field
        try Data(bytes).write(to: URL(fileURLWithPath: tar))
        #expect(throws: ArchiveError.self) {
            let reader = try ArchiveReader(try Descriptor.open(FilePath(tar), flags: Descriptor.readOnly))
            while let member = try reader.next() { if member.type == .regular { _ = try reader.read(limit: 64 << 20) } }
        }
    }

    /// libarchive's xar reader hands the second member's data padded with zeros as long as the
    /// first member: a member is read no further than its header's size (a PackageInfo read with
    /// zeros after it was not XML).
    @Test func xarMembersAreReadToTheirSizeAndNoFurther() throws {
        let source = TreeWriter(root: temporary.appending("xar-source"))
        source.text("First", String(repeating: "1", count: 111))
        source.text("Second/PackageInfo", "<pkg-info identifier=\"x\"/>")
        let archive = temporary.appending("two.xar")
        let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", archive, "--format", "xar", "-C", source.root, "."])
        try #require(made.status == 0, "\(made)")
        let reader = try ArchiveReader(try Descriptor.open(FilePath(archive), flags: Descriptor.probeRead))
        var read: [String: [UInt8]] = [:]
        while let member = try reader.next() {
            if member.type == .regular { read[member.path.string] = try reader.read(limit: 1 << 20) }
        }
        #expect(read["First"] == Array(String(repeating: "1", count: 111).utf8))
        #expect(read["Second/PackageInfo"] == Array("<pkg-info identifier=\"x\"/>".utf8))
    }
}
