import Archives
import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Rule 26: the bundles of a tree read from an archive of it are the bundles read from the tree,
/// field for field, except where they are (`path`, `archive`, `member`) and stamps.
@Suite struct ArchivedBundleTests {
    let temporary = TemporaryDirectory("archived")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }

    func writeTree() {
        var arm = MachOImage.arm64(uuid: MachOImage.uuid(seed: 61))
        arm.signature = ("org.example.chess", "TEAM000061")
        tree.machOApp("Payload/Chess.app", identifier: "org.example.chess", executable: MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 60)), arm]))
        tree.plist("Payload/Chess.app/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.chess"), "CFBundleExecutable": .string("Chess"), "CFBundlePackageType": .string("APPL"),
            "CFBundleVersion": .string("3.1"), "CFBundleIconFile": .string("Chess"), "CFBundleDevelopmentRegion": .string("en"),
            "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string("pgn")]), "CFBundleTypeIconFile": .string("Game")])]),
        ]), format: .binary)
        tree.file("Payload/Chess.app/Contents/Resources/Chess.icns", IconFixtures.icns([("ic07", IconFixtures.png(IconFixtures.disc(side: 16, red: 1, green: 2, blue: 3)))]))
        tree.file("Payload/Chess.app/Contents/Resources/Game.icns", IconFixtures.icns([("ic07", IconFixtures.png(IconFixtures.disc(side: 16, red: 3, green: 2, blue: 1)))]))
        tree.file("Payload/Chess.app/Contents/Resources/de.lproj/InfoPlist.strings", StringsEncoder.encode([("CFBundleDisplayName", "Schach")], as: .utf16LittleEndianWithBOM))
        tree.file("Payload/Chess.app/Contents/Resources/en.lproj/InfoPlist.strings", StringsEncoder.encode([("CFBundleDisplayName", "Chess")], as: .utf8))
        tree.plist("Payload/Chess.app/Contents/PlugIns/Openings.plugin/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.chess.openings"), "CFBundlePackageType": .string("BNDL")]))
        tree.macFramework("Payload/Chess.app/Contents/Frameworks/Kit.framework", identifier: "org.example.kit")
        tree.gnustepApp("GNUstep/Tool.app", info: ["NSExecutable": .string("Tool"), "CFBundleIdentifier": .string("org.example.tool")], lprojs: ["English", "German"])
        tree.file("GNUstep/Tool.app/Tool", ELFImage(buildID: MachOImage.uuid(seed: 62)).bytes(), mode: 0o755)
        var dwarf = arm
        dwarf.fileType = 10
        dwarf.signature = nil
        tree.dSYM("Builds/Chess.app.dSYM", dwarfName: "Chess", dwarf: dwarf.bytes())
        // An Xcode archive: its own Info.plist, the product, its dSYM.
        tree.plist("Archives/Chess.xcarchive/Info.plist", .dictionary([
            "ArchiveVersion": .integer(2), "Name": .string("Chess"),
            "ApplicationProperties": .dictionary(["CFBundleIdentifier": .string("org.example.mini"), "ApplicationPath": .string("Applications/Mini.app")]),
        ]))
        tree.machOApp("Archives/Chess.xcarchive/Products/Applications/Mini.app", identifier: "org.example.mini",
                      executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 63)).bytes())
        tree.dSYM("Archives/Chess.xcarchive/dSYMs/Mini.app.dSYM", dwarfName: "Mini", dwarf: dwarf.bytes())
    }

    /// A record with where it is taken out: paths relative to `root`, under one made-up base.
    func comparable(_ record: BundleRecord, root: FilePath) -> BundleRecord {
        let base = FilePath("/base")
        func moved(_ path: FilePath?) -> FilePath? { path.flatMap { $0.relative(to: root) }.map { base.appending($0) } }
        var copy = record
        copy.key = moved(record.key) ?? record.key
        copy.executable = moved(record.executable)
        copy.icon = moved(record.icon)
        for index in copy.documentTypes.indices { copy.documentTypes[index].iconPath = moved(record.documentTypes[index].iconPath) }
        copy.archive = nil
        copy.member = nil
        copy.stamps = []
        // The file on disk a loose slice was read from (served by symbol stores); a member has none.
        #expect(record.archive == nil || record.binaries.allSatisfy { $0.onDisk == nil }, "\(record.key)")
        for index in copy.binaries.indices { copy.binaries[index].onDisk = nil }
        return copy
    }

    func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws {
        let result = try Subprocess.run(executable, arguments, directory: directory)
        try #require(result.status == 0, "\(executable) \(arguments): \(result)")
    }

    @Test func everyFieldIsTheSameLooseAndArchived() throws {
        writeTree()
        let catalogue = try Catalogue(path: temporary.appending("loose.sqlite"), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(tree.root))
        let loose = try catalogue.bundles(matching: BundleQuery()).map { comparable($0.record, root: FilePath(tree.root)) }
        #expect(loose.count >= 7, "\(loose.map(\.key))")

        let archives = temporary.appending("archives")
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        try run("/usr/bin/zip", ["-qry", Paths.join(archives, "Chess.ipa"), "Payload", "GNUstep", "Builds", "Archives"], in: tree.root)
        for (name, flag) in [("Chess.tar.gz", "-z"), ("Chess.tar.xz", "-J"), ("Chess.tar.zst", "--zstd")] {
            try run("/bin/tar", ["-c", flag, "-f", Paths.join(archives, name), "-C", tree.root, "Payload", "GNUstep", "Builds", "Archives"])
        }
        let root = try ScanRoot(path: FilePath(archives))
        let inspector = ArchiveInspector(inspector: BundleInspector(root: root))
        for name in ["Chess.ipa", "Chess.tar.gz", "Chess.tar.xz", "Chess.tar.zst"] {
            let path = FilePath(Paths.join(archives, name))
            let result = inspector.inspect(archive: path) { try root.open(FilePath(name), flags: Descriptor.readOnly) }
            #expect(result.error == nil, "\(name): \(result.error ?? "")")
            #expect(result.records.allSatisfy { $0.archive == path && $0.member.map { path.appending($0) } == $0.key }, "\(name)")
            let archived = result.records.map { comparable($0, root: path) }.sorted { $0.key < $1.key }
            #expect(archived.map(\.key) == loose.map(\.key).sorted(), "\(name)")
            for (a, b) in zip(archived, loose.sorted { $0.key < $1.key }) {
                #expect(a == b, "\(name): \(a.key) differs:\narchived \(a)\nloose    \(b)")
            }
        }
    }

    /// Rule 27: the rules, not mode bits, decide which members are read. Wheels and zips often
    /// store binaries without an execute bit: a framework's binary named as its bundle, a GNUstep
    /// app's, and one an Info file names otherwise are all read, as they are loose.
    @Test func binariesWithoutAnExecuteBitAreReadAsTheRulesName() throws {
        tree.macFramework("Wheel/Kit.framework", identifier: "org.example.kit")
        tree.file("Wheel/Kit.framework/Versions/A/Kit", MachOImage.arm64(uuid: MachOImage.uuid(seed: 91)).bytes(), mode: 0o644)
        tree.plist("Wheel/Engine.framework/Versions/A/Resources/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.engine"), "CFBundlePackageType": .string("FMWK"), "CFBundleExecutable": .string("libEngine")]))
        tree.file("Wheel/Engine.framework/Versions/A/libEngine", MachOImage.arm64(uuid: MachOImage.uuid(seed: 92)).bytes(), mode: 0o644)
        tree.symlink("Wheel/Engine.framework/Versions/Current", to: "A")
        tree.gnustepApp("Wheel/Tool.app", info: ["NSExecutable": .string("Tool"), "CFBundleIdentifier": .string("org.example.tool")])
        tree.file("Wheel/Tool.app/Tool", ELFImage(buildID: MachOImage.uuid(seed: 93)).bytes(), mode: 0o644)
        let archives = temporary.appending("archives")
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        try run("/usr/bin/zip", ["-qry", Paths.join(archives, "Wheel.whl"), "Wheel"], in: tree.root)
        try run("/bin/tar", ["-czf", Paths.join(archives, "Wheel.tar.gz"), "-C", tree.root, "Wheel"])
        let root = try ScanRoot(path: FilePath(archives))
        let inspector = ArchiveInspector(inspector: BundleInspector(root: root))
        for name in ["Wheel.whl", "Wheel.tar.gz"] {
            let path = FilePath(Paths.join(archives, name))
            let result = inspector.inspect(archive: path) { try root.open(FilePath(name), flags: Descriptor.readOnly) }
            #expect(result.error == nil, "\(name): \(result.error ?? "")")
            for (identifier, seed) in [("org.example.kit", 91), ("org.example.engine", 92), ("org.example.tool", 93)] {
                let record = try #require(result.records.first { $0.identifier == identifier }, "\(name): \(identifier)")
                #expect(record.errors.isEmpty, "\(name): \(identifier): \(record.errors)")
                #expect(record.binaries.first?.uuidKey == BinarySlice.uuidKey(MachOImage.uuid(seed: seed).map { String(format: "%02x", $0) }.joined()),
                        "\(name): \(identifier): \(record.binaries)")
            }
        }
    }

    /// A name written twice (an archive appended to, or made to mislead): extracting leaves the
    /// last copy, so the rules read the last copy, of every file they read. The reference is what
    /// `bsdtar -x` extracts, indexed loose.
    @Test func aNameWrittenTwiceIsReadAsExtractingLeavesIt() throws {
        let first = TreeWriter(root: temporary.appending("first")), last = TreeWriter(root: temporary.appending("last"))
        for (writer, name, seed) in [(first, "first", 81), (last, "last", 82)] {
            writer.machOApp("Payload/Twice.app", identifier: "org.example.\(name)", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: seed)).bytes())
            writer.strings("Payload/Twice.app/Contents/Resources/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Zweimal \(name)"])
        }
        let archives = temporary.appending("archives")
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        // Python's zipfile and tarfile both write a name again when asked (zipfile warns).
        let script = ["import", "os,", "tarfile,", "warnings,", "zipfile"].joined(separator: " ") + """

            warnings.simplefilter('ignore')
            def files(root):
                for base, dirs, names in sorted(os.walk(root)):
                    for name in sorted(names):
                        yield os.path.join(base, name), os.path.relpath(os.path.join(base, name), root)
            with zipfile.ZipFile('\(archives)/Twice.ipa', 'w', zipfile.ZIP_DEFLATED) as z, tarfile.open('\(archives)/Twice.tar.gz', 'w:gz') as t:
                for root in ['\(first.root)', '\(last.root)']:
                    for full, name in files(root):
                        z.write(full, name)
                        t.add(full, name)
            """
        let made = try Subprocess.run("/usr/bin/python3", ["-c", script])
        try #require(made.status == 0, "\(made)")
        let root = try ScanRoot(path: FilePath(archives))
        for name in ["Twice.ipa", "Twice.tar.gz"] {
            let extracted = temporary.appending("extracted-\(name)")
            try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
            try run("/usr/bin/bsdtar", ["-xf", Paths.join(archives, name), "-C", extracted])
            let catalogue = try Catalogue(path: temporary.appending("\(name).sqlite"), mode: .readWrite)
            _ = try Indexer(catalogue: catalogue).index(root: FilePath(extracted))
            let loose = try catalogue.bundles(matching: BundleQuery()).map { comparable($0.record, root: FilePath(extracted)) }
            #expect(loose.map(\.identifier) == ["org.example.last"], "bsdtar -x of \(name)")

            let path = FilePath(Paths.join(archives, name))
            let result = ArchiveInspector(inspector: BundleInspector(root: root)).inspect(archive: path) { try root.open(FilePath(name), flags: Descriptor.readOnly) }
            let archived = result.records.map { comparable($0, root: path) }
            #expect(archived == loose, "\(name):\narchived \(archived)\nextracted \(loose)")
            #expect(archived.first?.binaries.first?.uuid == BinarySlice.canonicalUUID(MachOImage.uuid(seed: 82)), "\(name)")
        }
    }

    /// A zipped `.xcarchive` alone, as build machines upload them.
    @Test func aZippedXcarchiveHoldsItsProductAndDSYM() throws {
        writeTree()
        let zip = temporary.appending("Chess.xcarchive.zip")
        try run("/usr/bin/zip", ["-qry", zip, "Chess.xcarchive"], in: tree.path("Archives"))
        let root = try ScanRoot(path: FilePath(temporary.path))
        let result = ArchiveInspector(inspector: BundleInspector(root: root)).inspect(archive: FilePath(zip)) {
            try root.open("Chess.xcarchive.zip", flags: Descriptor.readOnly)
        }
        #expect(result.error == nil)
        let members = Set(result.records.compactMap { $0.member?.string })
        #expect(members.isSuperset(of: ["Chess.xcarchive/Products/Applications/Mini.app", "Chess.xcarchive/dSYMs/Mini.app.dSYM"]), "\(members)")
        let dSYM = result.records.first { $0.member?.string == "Chess.xcarchive/dSYMs/Mini.app.dSYM" }
        #expect(dSYM?.binaries.first?.uuid == BinarySlice.canonicalUUID(MachOImage.uuid(seed: 61)))
    }

    /// Real macOS wheels, when the corpus has some: zip files holding `.app` and `.framework` bundles.
    @Test(.enabled(if: !Corpus.wheels.isEmpty, Comment(rawValue: Corpus.wheelsSkipMessage)))
    func realMacOSWheelsHoldBundles() throws {
        let root = try ScanRoot(path: FilePath(temporary.path))
        var bundles = 0
        for (index, wheel) in Corpus.wheels.enumerated() {
            let copy = "wheel\(index).zip"
            try Data(contentsOf: URL(fileURLWithPath: wheel)).write(to: URL(fileURLWithPath: temporary.appending(copy)))
            let result = ArchiveInspector(inspector: BundleInspector(root: root)).inspect(archive: FilePath(temporary.appending(copy))) {
                try root.open(FilePath(copy), flags: Descriptor.readOnly)
            }
            #expect(result.error == nil, "\(wheel): \(result.error ?? "")")
            for record in result.records where record.isBundle {
                bundles += 1
                #expect(record.errors.isEmpty, "\(wheel): \(record.member?.string ?? ""): \(record.errors)")
                guard record.executable != nil, let member = record.member, let slice = record.binaries.first else { continue }
                // Their executables' headers are intact: each slice as llvm-objdump reads the extracted file.
                let extracted = temporary.appending("extracted")
                let inside = member.appending(slice.file).string
                let unzipped = try Subprocess.run("/bin/sh", ["-c", "unzip -p \"$1\" \"$2\" > \"$3\"", "sh", wheel, inside, extracted])
                try #require(unzipped.status == 0, "\(unzipped)")
                let seen = try Toolchain.output("llvm-objdump", ["--macho", "--private-headers", "--arch=all", extracted])
                for binary in record.binaries { #expect(seen.contains("uuid \(binary.uuid ?? "-")"), "\(wheel): \(inside) \(binary.arch)") }
            }
        }
        #expect(bundles > 0, "no bundle in \(Corpus.wheels)")
    }

    @Test func onlyArchiveNamesAreLookedInto() {
        for name in ["A.ipa", "b.ZIP", "w-1.0-py3-none-macosx_11_0_universal2.WHL", "c.tar.gz", "d.tgz", "e.tar.zst", "f.xar", "g.pkg", "Caf\u{E9}.Tar.Bz2", "h.CPIO"] { #expect(ArchiveInspector.isArchiveName(FileName(name)), "\(name)") }
        for name in [".zip", "notes.txt", "archive.gz", "App.app", "x.Zi_", "y.ZIq", "z.@ip", "Caf\u{E9}.TAR.GZ.txt"] { #expect(!ArchiveInspector.isArchiveName(FileName(name)), "\(name)") }
    }
}
