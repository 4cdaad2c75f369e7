import Archives
import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Rule 33: an installer's payload is the one archive inside an archive that is opened. Packages
/// built as `pkgbuild` and `productbuild` lay them out (`InstallerPackageBuilder`: `cpio -o`
/// payloads, gzip, bzip2 or xz, in a xar), read by `ArchiveInspector` as `index` reads them.
@Suite struct InstallerPayloadTests {
    let temporary = TemporaryDirectory("installer-payloads")
    var packages: String { temporary.appending("packages") }

    func inspect(_ name: String, limits: ArchiveLimits = .standard) throws -> ArchiveInspector.Result {
        let root = try ScanRoot(path: FilePath(packages))
        let inspector = ArchiveInspector(inspector: BundleInspector(root: root), limits: limits)
        return inspector.inspect(archive: FilePath(packages).appending(FileName(name))) { try root.open(FilePath(name), flags: Descriptor.readOnly) }
    }

    static func key(seed: Int) -> String { MachOImage.uuid(seed: seed).map { String(format: "%02x", $0) }.joined() }

    func build(_ name: String, _ components: [InstallerPackageBuilder.Component], product: (title: String, id: String, version: String)? = nil,
               distribution: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: packages, withIntermediateDirectories: true)
        try InstallerPackageBuilder.build(Paths.join(packages, name), components: components, product: product, distribution: distribution,
                                          staging: temporary.appending("staging"))
    }

    /// The bundles of a tree installed by a package are the bundles read from the tree, field for
    /// field, with each one's install path: for every compression `pkgbuild` may use.
    @Test func everyFieldIsTheSameLooseAndInAPayload() throws {
        let loose = ArchivedBundleTests()
        loose.writeTree()
        let catalogue = try Catalogue(path: temporary.appending("loose.sqlite"), mode: .readWrite)
        _ = try Indexer(catalogue: catalogue).index(root: FilePath(loose.tree.root))
        let expected = try catalogue.bundles(matching: BundleQuery()).map { loose.comparable($0.record, root: FilePath(loose.tree.root)) }
            .sorted { $0.key < $1.key }
        #expect(expected.count >= 7)
        for compression in [InstallerPackageBuilder.Compression.gzip, .bzip2, .xz, .none] {
            let name = "Chess-\(compression.rawValue).pkg"
            try build(name, [.init(identifier: "org.example.chess.pkg", version: "3.1", installLocation: "/Applications/Games",
                                   payload: loose.tree.root, compression: compression)])
            let result = try inspect(name)
            #expect(result.error == nil, "\(name): \(result.error ?? "")")
            let archive = FilePath(packages).appending(FileName(name))
            for record in result.records {
                let relative = try #require(record.member?.relative(to: FilePath("Payload")), "\(record.key)")
                #expect(record.installation == BundleRecord.Installation(component: "org.example.chess.pkg",
                                                                         installsTo: FilePath("/Applications/Games").appending(relative)))
            }
            var archived = result.records.map { loose.comparable($0, root: archive.appending("Payload")) }.sorted { $0.key < $1.key }
            for index in archived.indices { archived[index].installation = nil }
            #expect(archived.map(\.key) == expected.map(\.key), "\(name)")
            for (a, b) in zip(archived, expected) { #expect(a == b, "\(name): \(a.key) differs:\npayload \(a)\nloose   \(b)") }
        }
    }

    /// A product archive of two components: each bundle says which component installs it and
    /// where, and a binary without an execute bit that only the Info file names is read from
    /// inside its payload, as from any archive (rule 27's third pass).
    @Test func aProductArchiveOfTwoComponents() throws {
        let editor = TreeWriter(root: temporary.appending("editor"))
        editor.machOApp("Editor.app", identifier: "org.example.editor", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 1)).bytes())
        let kit = TreeWriter(root: temporary.appending("kit"))
        kit.plist("Engine.framework/Versions/A/Resources/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.engine"), "CFBundlePackageType": .string("FMWK"), "CFBundleExecutable": .string("libEngine")]))
        kit.file("Engine.framework/Versions/A/libEngine", MachOImage.arm64(uuid: MachOImage.uuid(seed: 2)).bytes(), mode: 0o644)
        kit.symlink("Engine.framework/Versions/Current", to: "A")
        try build("Suite.pkg", [
            .init(identifier: "org.example.editor.pkg", version: "2.1", installLocation: "/Applications", payload: editor.root,
                  compression: .bzip2, directory: "Editor.pkg", bundles: [("org.example.editor", "./Editor.app")]),
            .init(identifier: "org.example.engine.pkg", version: "1.0", installLocation: "/Library/Frameworks/", payload: kit.root,
                  compression: .xz, directory: "Engine.pkg"),
        ], product: ("Example Suite", "org.example.suite", "2.1.0"))
        let result = try inspect("Suite.pkg")
        #expect(result.error == nil, "\(result.error ?? "")")
        let app = try #require(result.records.first { $0.identifier == "org.example.editor" })
        #expect(app.member == FilePath("Editor.pkg/Payload/Editor.app"))
        #expect(app.installation == BundleRecord.Installation(component: "org.example.editor.pkg", installsTo: FilePath("/Applications/Editor.app")))
        #expect(app.binaries.first?.uuidKey?.lowercased() == Self.key(seed: 1))
        let engine = try #require(result.records.first { $0.identifier == "org.example.engine" })
        #expect(engine.installation?.installsTo == FilePath("/Library/Frameworks/Engine.framework"))
        #expect(engine.installation?.component == "org.example.engine.pkg")
        #expect(engine.binaries.first?.uuidKey?.lowercased() == Self.key(seed: 2), "\(engine.errors)")
        let installer = try #require(result.installer)
        #expect(installer.product == InstallerProduct(title: "Example Suite", identifier: "org.example.suite", version: "2.1.0"))
        #expect(installer.components.map(\.component.identifier) == ["org.example.editor.pkg", "org.example.engine.pkg"])
        #expect(installer.payloadErrors.isEmpty)
        // Its component directories are its layout, not packages of their own.
        #expect(result.records.count == 2, "\(result.records.map(\.key))")
        // Not an installer: the same xar named .xar keeps its payloads shut (rule 27).
        try FileManager.default.copyItem(atPath: Paths.join(packages, "Suite.pkg"), toPath: Paths.join(packages, "Suite.xar"))
        #expect(try inspect("Suite.xar").records.allSatisfy { $0.identifier == nil && $0.installation == nil })
    }

    /// A `PackageInfo` or `Distribution` that cannot be read is an error on what it describes:
    /// the bundles of that component have no `installsTo` (nothing is guessed without it) and
    /// carry the error, every bundle of the product carries the `Distribution`'s, and the
    /// package is not read whole (its error says the first).
    @Test func unreadableMetadataIsAnErrorOnItsComponentsBundles() throws {
        let editor = TreeWriter(root: temporary.appending("broken-editor"))
        editor.macApp("Editor.app", identifier: "org.example.editor")
        let viewer = TreeWriter(root: temporary.appending("broken-viewer"))
        viewer.macApp("Viewer.app", identifier: "org.example.viewer")
        try build("Broken.pkg", [
            .init(identifier: "org.example.editor.pkg", version: "1.0", installLocation: "/Applications", payload: editor.root, directory: "Editor.pkg"),
            .init(identifier: "org.example.viewer.pkg", version: "1.0", installLocation: "/Applications", payload: viewer.root, directory: "Viewer.pkg",
                  packageInfoText: "<pkg-info identifier=\"org.example.viewer.pkg\" install-location=\"/Applications\""),
        ], product: ("Broken", "org.example.broken", "1.0"))
        let result = try inspect("Broken.pkg")
        let installer = try #require(result.installer)
        #expect(installer.metadataErrors.keys.sorted() == [FilePath("Viewer.pkg/PackageInfo")])
        #expect(result.error?.hasPrefix("Viewer.pkg/PackageInfo: XML:") == true, "\(result.error ?? "")")
        let placed = try #require(result.records.first { $0.identifier == "org.example.editor" })
        #expect(placed.installation?.installsTo == FilePath("/Applications/Editor.app"))
        #expect(placed.errors.isEmpty, "\(placed.errors)")
        let unplaced = try #require(result.records.first { $0.identifier == "org.example.viewer" })
        #expect(unplaced.installation == nil)
        #expect(unplaced.errors.count == 1)
        #expect(unplaced.errors.first?.hasPrefix("Viewer.pkg/PackageInfo could not be read (XML:") == true, "\(unplaced.errors)")
        #expect(unplaced.errors.first?.hasSuffix("its component and where it installs are unknown") == true)

        try build("NoProduct.pkg", [
            .init(identifier: "org.example.editor.pkg", version: "1.0", installLocation: "/Applications", payload: editor.root, directory: "Editor.pkg"),
        ], product: ("Broken", "org.example.broken", "1.0"), distribution: "<installer-gui-script><title>Broken</title>")
        let unnamed = try inspect("NoProduct.pkg")
        #expect(unnamed.installer?.product == nil)
        #expect(unnamed.error?.hasPrefix("Distribution: XML:") == true, "\(unnamed.error ?? "")")
        let record = try #require(unnamed.records.first)
        #expect(record.installation?.installsTo == FilePath("/Applications/Editor.app"))
        #expect(record.errors.first?.hasPrefix("Distribution could not be read (XML:") == true, "\(record.errors)")
    }

    /// A product archive of 1,000 components, each with its payload: every bundle is placed by
    /// its own component (the lookup by name that replaced a walk over every payload).
    @Test func everyComponentOfAWideProductPlacesItsOwnBundles() throws {
        let part = TreeWriter(root: temporary.appending("part"))
        part.macApp("Part.app", identifier: "org.example.part")
        try FileManager.default.createDirectory(atPath: packages, withIntermediateDirectories: true)
        try InstallerPackageBuilder.buildWide(Paths.join(packages, "Parts.pkg"), components: 1_000, payload: part.root,
                                              staging: temporary.appending("staging"))
        // The per-archive time limit is not what this tests; a debug build on a loaded machine
        // can take longer than the standard 30 s.
        let result = try inspect("Parts.pkg", limits: ArchiveLimits(seconds: 3_600))
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.records.count == 1_000)
        for record in result.records {
            let directory = try #require(record.member?.components.first?.string, "\(record.key)")
            let index = String(directory.dropFirst("Part".count).dropLast(".pkg".count))
            #expect(record.installation == BundleRecord.Installation(component: "org.example.part\(index).pkg",
                                                                     installsTo: FilePath("/Applications/Part\(index)/Part.app")), "\(record.key)")
        }
    }

    /// The payload lookup against a walk over every payload, for mutated member paths and
    /// payload sets (made relative and without empty names, as the member tree holds them): the
    /// same answer, never a crash.
    @Test func thePayloadLookupAgreesWithAWalk() {
        var mutator = Mutator(seed: 0x9A7_10AD)
        let names = ["Payload", "Editor.pkg", "Editor.pkg/Payload", "Editor.pkg/Payload/Editor.app", "Payload/Tool.app", "A.pkg/B.pkg/Payload",
                     "Payload/Payload", "Payload/x", "", "a/Payload/b", "Editor.pkg/Payload/Editor.app/Contents/Info.plist"]
        func tidy(_ bytes: [UInt8]) -> FilePath { FilePath(FilePath(bytes: bytes).components.map(\.string).joined(separator: "/")) }
        var found = 0
        for iteration in 0..<3_000 {
            let seed = Array(names[iteration % names.count].utf8)
            let member = tidy(mutator.mutate(seed, spliceWith: Array(names[(iteration * 7 + 3) % names.count].utf8)))
            let payloads = Set((names.map { Array($0.utf8) } + [mutator.mutate(Array(names[(iteration + 1) % names.count].utf8))]).map(tidy)
                .filter(InstallerPackage.isPayload))
            let walked = payloads.filter { member.isWithin($0) && member != $0 }
            let looked = InstallerPackage.payload(containing: member, among: payloads)
            // Nested payloads (`Payload/Payload`) never come out of an archive: either answer is a walk's.
            if walked.count > 1 { #expect(looked.map(walked.contains) == true) } else { #expect(looked == walked.first, "\(member) in \(payloads)") }
            if looked != nil { found += 1 }
        }
        #expect(found > 100)
    }

    /// Apple's pbzx is an error on its component, never a crash; the other component is read.
    @Test func pbzxIsAnErrorOnItsComponent() throws {
        let viewer = TreeWriter(root: temporary.appending("viewer"))
        viewer.macApp("Viewer.app", identifier: "org.example.viewer")
        try build("Apple.pkg", [
            .init(identifier: "com.apple.pkg.Core", version: "15.0", installLocation: "/", payload: viewer.root, compression: .pbzx, directory: "Core.pkg"),
            .init(identifier: "org.example.viewer.pkg", version: "1.0", installLocation: "/Applications", payload: viewer.root, directory: "Viewer.pkg"),
        ], product: ("Apple", "com.apple.pkg", "15.0"))
        let result = try inspect("Apple.pkg")
        let installer = try #require(result.installer)
        #expect(installer.payloadErrors[FilePath("Core.pkg/Payload")]?.contains("pbzx") == true, "\(installer.payloadErrors)")
        #expect(result.error?.contains("pbzx") == true)
        #expect(result.records.map(\.installation?.installsTo) == [FilePath("/Applications/Viewer.app")])
    }

    /// Rule 27 holds for what a payload decompresses: a bomb stops at the ratio, a payload larger
    /// than the archive's budget at the budget, and `../` names in it are only counted.
    @Test func aPayloadIsReadWithinTheArchivesLimits() throws {
        let bomb = TreeWriter(root: temporary.appending("bomb"))
        bomb.macApp("Bomb.app", identifier: "org.example.bomb")
        bomb.file("Bomb.app/Contents/Resources/zeros", [UInt8](repeating: 0, count: 64 << 20))
        try build("Bomb.pkg", [.init(identifier: "org.example.bomb.pkg", version: "1", installLocation: "/Applications", payload: bomb.root)])
        let start = threadSeconds()
        let bombed = try inspect("Bomb.pkg")
        #expect(bombed.installer?.payloadErrors[FilePath("Payload")]?.contains("-fold compression") == true, "\(String(describing: bombed.installer))")
        #expect(bombed.error?.contains("-fold compression") == true)
        #expect(threadSeconds() - start < 5, "processor time")

        let large = TreeWriter(root: temporary.appending("large"))
        large.macApp("Large.app", identifier: "org.example.large")
        var generator = SystemRandomNumberGenerator()
        large.file("Large.app/Contents/Resources/noise", (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try build("Large.pkg", [.init(identifier: "org.example.large.pkg", version: "1", installLocation: "/Applications", payload: large.root,
                                      compression: .none)])
        #expect(try inspect("Large.pkg").error == nil)
        let limited = try inspect("Large.pkg", limits: ArchiveLimits(uncompressedBytes: 2 << 20))
        #expect(limited.error?.contains("more than 2 MiB decompressed") == true, "\(limited.error ?? "")")

        let climbing = TreeWriter(root: temporary.appending("climbing/inside"))
        climbing.macApp("Good.app", identifier: "org.example.good")
        TreeWriter(root: temporary.appending("climbing")).text("outside", "not installed anywhere")
        let payload = temporary.appending("climbing.cpio.gz")
        let made = try Subprocess.run("/bin/sh", ["-c", "cd \"$1\" && { echo ../outside; find Good.app; } | cpio -o --format odc --quiet | gzip -c > \"$2\"",
                                                  "sh", climbing.root, payload])
        try #require(made.status == 0, "\(made)")
        let staged = TreeWriter(root: temporary.appending("climbing-package"))
        staged.text("PackageInfo", InstallerPackageBuilder.packageInfo(.init(identifier: "org.example.good.pkg", version: "1", installLocation: "/Applications",
                                                                             payload: "")))
        try FileManager.default.copyItem(atPath: payload, toPath: staged.path("Payload"))
        let xar = try Subprocess.run("/usr/bin/bsdtar", ["-cf", Paths.join(packages, "Climbing.pkg"), "--format", "xar", "-C", staged.root, "."])
        try #require(xar.status == 0, "\(xar)")
        let climbed = try inspect("Climbing.pkg")
        #expect(climbed.records.map(\.installation?.installsTo) == [FilePath("/Applications/Good.app")])
        #expect(climbed.installer?.payloadErrors[FilePath("Payload")] == "1 member names leading out of the payload (`..`) ignored")
    }

    /// Payloads are read by libarchive through a feed of ours: 2,000 mutated payloads (cpio
    /// stored and gzip'd, in a xar that stores them as they are, so the mutations reach the
    /// payload's reader) are each read without a crash and within the limits.
    @Test func mutatedPayloadsAreReadWithinTheLimits() throws {
        let app = TreeWriter(root: temporary.appending("fuzz-app"))
        app.machOApp("Editor.app", identifier: "org.example.editor", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 3)).bytes())
        let staged = TreeWriter(root: temporary.appending("fuzz-package"))
        staged.text("PackageInfo", InstallerPackageBuilder.packageInfo(.init(identifier: "org.example.editor.pkg", version: "1",
                                                                             installLocation: "/Applications", payload: "")))
        try FileManager.default.createDirectory(atPath: packages, withIntermediateDirectories: true)
        var mutator = Mutator(seed: 33)
        let limits = ArchiveLimits(members: 2_000, uncompressedBytes: 32 << 20, seconds: 5)
        for compression in [InstallerPackageBuilder.Compression.none, .gzip] {
            try InstallerPackageBuilder.writePayload(from: app.root, to: staged.path("Payload"), compression: compression)
            let name = "Fuzz-\(compression.rawValue).pkg"
            let made = try Subprocess.run("/usr/bin/bsdtar", ["-cf", Paths.join(packages, name), "--format", "xar", "--options", "xar:compression=none",
                                                              "-C", staged.root, "."])
            try #require(made.status == 0, "\(made)")
            let original = try Array(Data(contentsOf: URL(fileURLWithPath: Paths.join(packages, name))))
            let payload = try Array(Data(contentsOf: URL(fileURLWithPath: staged.path("Payload"))))
            let start = try #require(original.firstRange(of: payload)?.lowerBound, "the payload is stored as it is")
            #expect(try inspect(name).records.count == 1)
            for _ in 0..<1_000 {
                var region = mutator.mutate(payload)
                region = Array(region.prefix(payload.count)) + [UInt8](repeating: 0, count: max(0, payload.count - region.count))
                var bytes = original
                bytes.replaceSubrange(start..<(start + payload.count), with: region)
                try Data(bytes).write(to: URL(fileURLWithPath: Paths.join(packages, name)))
                let began = threadSeconds()
                let result = try inspect(name, limits: limits)
                #expect(threadSeconds() - began < limits.seconds + 1)
                #expect(result.members <= limits.members * 2)
            }
        }
    }
}
