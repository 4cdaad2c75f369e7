import BundleModel
import Fixtures
import SystemCalls
import Testing
import TestSupport

/// BUNDLES.md rule 21: which file is a bundle's icon, for macOS, iOS and GNUstep bundles. Only the
/// path is found here; IconImagesTests decode the files.
@Suite struct IconLocationTests {
    let temporary = TemporaryDirectory("icons")
    var tree: TreeWriter { TreeWriter(root: temporary.path) }

    func png(side: Int) -> [UInt8] { IconFixtures.png(IconFixtures.gradient(side: side)) }

    @Test func macOSIconFileGetsItsExtensionAndTheSearchPattern() throws {
        tree.macApp("Chess.app", identifier: "com.example.chess", info: ["CFBundleIconFile": .string("Chess")])
        tree.file("Chess.app/Contents/Resources/Chess.icns", IconFixtures.icns([("ic07", png(side: 128))]))
        let record = try #require(try inspect("Chess.app", in: tree))
        #expect(record.icon == tree.path("Chess.app/Contents/Resources/Chess.icns"))
        #expect(record.warnings == [])

        // Only in the development region's lproj: rule 12 finds it there.
        tree.macApp("Local.app", identifier: "com.example.local", info: [
            "CFBundleIconFile": .string("Local.icns"), "CFBundleDevelopmentRegion": .string("English")])
        tree.file("Local.app/Contents/Resources/en.lproj/Local.icns", IconFixtures.icns([("ic07", png(side: 16))]))
        tree.file("Local.app/Contents/Resources/de.lproj/Local.icns", IconFixtures.icns([("ic07", png(side: 16))]))
        #expect(try inspect("Local.app", in: tree)?.icon == tree.path("Local.app/Contents/Resources/en.lproj/Local.icns"))
    }

    @Test func aMissingOrBrokenIconIsAWarningNeverAnError() throws {
        tree.macApp("Missing.app", identifier: "com.example.missing", info: ["CFBundleIconFile": .string("Gone")])
        let missing = try #require(try inspect("Missing.app", in: tree))
        #expect(missing.icon == nil && missing.errors == [])
        #expect(missing.warnings == ["CFBundleIconFile names \"Gone\", which is not among the bundle's resources"])

        tree.macApp("Junk.app", identifier: "com.example.junk", info: ["CFBundleIconFile": .string("Junk.icns")])
        tree.text("Junk.app/Contents/Resources/Junk.icns", "this is not an icon")
        // The index records where the icon is without opening it (`show` checks it: CommandTests).
        let junk = try #require(try inspect("Junk.app", in: tree))
        #expect(junk.errors == [] && junk.warnings == [])
        #expect(junk.icon == tree.path("Junk.app/Contents/Resources/Junk.icns"))

        tree.macApp("Catalog.app", identifier: "com.example.catalog", info: ["CFBundleIconName": .string("AppIcon")])
        let catalog = try #require(try inspect("Catalog.app", in: tree))
        #expect(catalog.icon == nil && catalog.errors == [])
        #expect(catalog.warnings.contains { $0.contains("Assets.car") })
    }

    @Test func iOSTakesTheLargestVariant() throws {
        tree.plist("Pocket.app/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.pocket"),
            "CFBundleIcons": .dictionary(["CFBundlePrimaryIcon": .dictionary([
                "CFBundleIconFiles": .array([.string("AppIcon60x60"), .string("AppIcon40x40")])])]),
        ]))
        tree.file("Pocket.app/AppIcon60x60.png", png(side: 60))
        tree.file("Pocket.app/AppIcon60x60@2x.png", png(side: 120))
        tree.file("Pocket.app/AppIcon60x60@3x.png", png(side: 180))
        tree.file("Pocket.app/AppIcon40x40@2x~ipad.png", png(side: 80))
        tree.file("Pocket.app/AppIcon60x60-unrelated.png", png(side: 512))
        let record = try #require(try inspect("Pocket.app", in: tree))
        #expect(record.icon == tree.path("Pocket.app/AppIcon60x60@3x.png"))
        #expect(record.warnings == [])

        // No icon keys: an iOS bundle's Icon.png, and its @2x.
        tree.plist("Old.app/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.old")]))
        tree.file("Old.app/Icon.png", png(side: 57))
        tree.file("Old.app/Icon@2x.png", png(side: 114))
        #expect(try inspect("Old.app", in: tree)?.icon == tree.path("Old.app/Icon@2x.png"))

        // The older CFBundleIconFiles key.
        tree.plist("Legacy.app/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.legacy"), "CFBundleIconFiles": .array([.string("Icon-72.png")])]))
        tree.file("Legacy.app/Icon-72.png", png(side: 72))
        #expect(try inspect("Legacy.app", in: tree)?.icon == tree.path("Legacy.app/Icon-72.png"))
    }

    // File names are bytes: the NFD twin of an icon's name is another file, not a variant of it.
    @Test func iOSVariantsMatchNamesByBytes() throws {
        tree.plist("Twin.app/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("com.example.twin"), "CFBundleIconFiles": .array([.string("Ic\u{E9}ne")])]))
        tree.file("Twin.app/Ic\u{E9}ne@2x.png", png(side: 120))
        tree.file("Twin.app/Ice\u{301}ne@3x.png", png(side: 180))
        #expect(try inspect("Twin.app", in: tree)?.icon == tree.path("Twin.app/Ic\u{E9}ne@2x.png"))
    }

    @Test func gnustepNSIconThenApplicationIcon() throws {
        tree.gnustepApp("Terminal.app", info: ["CFBundleIdentifier": .string("org.gnustep.Terminal"), "NSIcon": .string("Terminal.tiff")])
        tree.file("Terminal.app/Resources/Terminal.tiff", IconFixtures.tiff([IconFixtures.gradient(side: 48)]))
        #expect(try inspect("Terminal.app", in: tree)?.icon == tree.path("Terminal.app/Resources/Terminal.tiff"))

        // ApplicationIcon without an extension: GNUstep tries its image types.
        tree.gnustepApp("Ink.app", info: ["CFBundleIdentifier": .string("org.gnustep.Ink"), "ApplicationIcon": .string("Ink")])
        tree.file("Ink.app/Resources/Ink.png", png(side: 48))
        #expect(try inspect("Ink.app", in: tree)?.icon == tree.path("Ink.app/Resources/Ink.png"))
    }

    @Test func corpusIconsAreFound() throws {
        guard let corpus = Corpus.tree else {
            print("skipped: \(Corpus.skipMessage)")
            return
        }
        let root = try ScanRoot(path: FilePath(corpus))
        for (app, icon) in [("Terminal.app", "Resources/Terminal.tiff"), ("Chess.app", "Resources/ChessApp.tiff"),
                            ("SystemPreferences.app", "Resources/SystemPreferences.tiff")] {
            let path = FilePath(corpus).appending(FilePath("Applications/" + app))
            let record = try #require(BundleInspector(root: root).inspect(try DirectoryContext.open(path, in: root)))
            #expect(record.icon == path.appending(FilePath(icon)), "\(app)")
            #expect(!record.errors.contains { $0.contains("icon") }, "\(app)")
        }
    }
}
