import BundleModel
import Fixtures
import Testing
import SystemCalls
import TestSupport

@Suite struct ResourceResolverTests {
    let temporary = TemporaryDirectory("resolve")
    var tree: TreeWriter { TreeWriter(root: temporary.path) }
    let english = [LanguageTag("en")!]

    func resolver(_ relative: String) throws -> ResourceResolver {
        try ResourceResolver(record: try #require(try inspect(relative, in: tree)))
    }

    // BUNDLES.md section 7: Resources/both.txt and Resources/en.lproj/both.txt, languages en → the global one.
    @Test func globalResourceWins() throws {
        tree.macApp("A.app", identifier: "com.example.a")
        tree.text("A.app/Contents/Resources/both.txt", "global")
        tree.text("A.app/Contents/Resources/en.lproj/both.txt", "english")
        let resolution = try resolver("A.app").resolve("both.txt", languages: english)
        #expect(resolution?.path == tree.path("A.app/Contents/Resources/both.txt"))
        #expect(resolution?.localization == nil)
    }

    @Test func searchOrderWithBaseAfterTheFirstChoice() throws {
        tree.macApp("B.app", identifier: "com.example.b", info: ["CFBundleDevelopmentRegion": .string("en")])
        tree.text("B.app/Contents/Resources/Base.lproj/Main.nib", "base")
        tree.text("B.app/Contents/Resources/en.lproj/Main.nib", "en")
        tree.text("B.app/Contents/Resources/de.lproj/Other.txt", "de")
        tree.text("B.app/Contents/Resources/en.lproj/Other.txt", "en")
        tree.text("B.app/Contents/Resources/en.lproj/Sounds/city1.aiff", "sound")
        let resolver = try resolver("B.app")
        let german = [LanguageTag("de-AT")!]
        #expect(try resolver.resolve("Main.nib", languages: german)?.localization == "Base")
        #expect(try resolver.resolve("Other.txt", languages: german)?.localization == "de")
        #expect(try resolver.resolve("Other.txt", languages: [LanguageTag("ja")!])?.localization == "en")
        #expect(try resolver.resolve("Sounds/city1.aiff", languages: german)?.path == tree.path("B.app/Contents/Resources/en.lproj/Sounds/city1.aiff"))
        #expect(try resolver.resolve("Missing.txt", languages: german) == nil)
        // What `resolve` tries, as `bundlefs resolve` reports when nothing is there.
        #expect(try resolver.candidates(for: "x", languages: german).map(\.relative)
            == ["Contents/Resources/x", "Contents/Resources/de.lproj/x", "Contents/Resources/Base.lproj/x", "Contents/Resources/en.lproj/x"])
    }

    @Test func namesAreCaseSensitive() throws {
        tree.macApp("C.app", identifier: "com.example.c")
        tree.text("C.app/Contents/Resources/Icon.png", "png")
        #expect(try resolver("C.app").resolve("icon.png", languages: english) == nil)
    }

    // Rule 12: links are followed as CFBundle follows them; only a scope (the view's SOURCE) confines.
    @Test func linksAreFollowedAndOnlyAScopeConfinesThem() throws {
        tree.macApp("D.app", identifier: "com.example.d")
        tree.text("secret.txt", "outside")
        tree.symlink("D.app/Contents/Resources/link.txt", to: "../../../secret.txt")
        tree.symlink("D.app/Contents/Resources/abs.txt", to: tree.path("secret.txt"))
        tree.symlink("D.app/Contents/Resources/inside.txt", to: "../Info.plist")
        let resolver = try resolver("D.app")
        #expect(try resolver.resolve("link.txt", languages: english)?.path == tree.path("D.app/Contents/Resources/link.txt"))
        #expect(try resolver.resolve("abs.txt", languages: english) != nil)
        #expect(try resolver.resolve("inside.txt", languages: english) != nil)
        #expect(throws: ResourceResolver.Problem.self) { try resolver.resolve("../Info.plist", languages: english) }
        #expect(throws: ResourceResolver.Problem.self) { try resolver.resolve("/etc/passwd", languages: english) }
        #expect(throws: ResourceResolver.Problem.self) { try resolver.resolve("en.lproj/x", languages: english) }

        let bundleOnly = try ResourceResolver(record: resolver.record, within: try ScanRoot(path: FilePath(tree.path("D.app"))))
        #expect(try bundleOnly.resolve("link.txt", languages: english) == nil)
        #expect(try bundleOnly.resolve("abs.txt", languages: english) == nil)
        #expect(try bundleOnly.resolve("inside.txt", languages: english) != nil)
        let treeScope = try ResourceResolver(record: resolver.record, within: try ScanRoot(path: FilePath(tree.root)))
        #expect(try treeScope.resolve("link.txt", languages: english) != nil)
    }

    // Rule 2 and issue 12: a wheel's framework lost Versions/Current; its version directory holds
    // the executable and the resources not found at the top.
    @Test func frameworkWithoutCurrentUsesItsOnlyVersion() throws {
        tree.plist("QtCore.framework/Resources/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.qt-project.QtCore"), "CFBundleExecutable": .string("QtCore"),
            "CFBundlePackageType": .string("FMWK")]))
        tree.text("QtCore.framework/Versions/A/QtCore", "binary")
        tree.text("QtCore.framework/Versions/A/Resources/qt.conf", "conf")
        tree.strings("QtCore.framework/Versions/A/Resources/de.lproj/InfoPlist.strings", ["CFBundleName": "QtKern"])
        let record = try #require(try inspect("QtCore.framework", in: tree))
        #expect(record.errors == [])
        #expect(record.warnings == [])
        #expect(record.executable == tree.path("QtCore.framework/Versions/A/QtCore"))
        #expect(record.localizations == ["de"])
        #expect(record.localizedString("CFBundleName", for: [LanguageTag("de")!]) == "QtKern")
        let resolver = try ResourceResolver(record: record)
        #expect(try resolver.resolve("qt.conf", languages: english)?.path == tree.path("QtCore.framework/Versions/A/Resources/qt.conf"))
        #expect(try resolver.resolve("Info.plist", languages: english)?.path == tree.path("QtCore.framework/Resources/Info.plist"))
        // What resolve tries (and `bundlefs resolve` says it tried) covers both resources directories.
        #expect(try resolver.candidates(for: "x", languages: english).map(\.relative.string)
            == ["Resources/x", "Versions/A/Resources/x"])
        #expect(record.chosenInfoPlistStringsFile(for: [LanguageTag("de")!]) == "Versions/A/Resources/de.lproj/InfoPlist.strings")
    }

    @Test func frameworkWithSeveralVersionsAndNoCurrentSaysWhichItChose() throws {
        tree.plist("Kit.framework/Resources/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.kit"), "CFBundleExecutable": .string("Kit")]))
        tree.text("Kit.framework/Versions/A/Kit", "old")
        tree.text("Kit.framework/Versions/B/Kit", "new")
        let record = try #require(try inspect("Kit.framework", in: tree))
        #expect(record.errors == [])
        #expect(record.executable == tree.path("Kit.framework/Versions/B/Kit"))
        #expect(record.warnings.contains { $0.contains("used the highest, B") }, "\(record.warnings)")
    }

    // Rule 12 on Debian's layout: /usr/lib/GNUstep/.../X.app/Resources links into /usr/share, and
    // single resources are links too. Reading and resolving agree.
    @Test func debianLinkedGNUstepAppResolvesWhatItLists() throws {
        let app = "usr/lib/GNUstep/Applications/Cenon.app"
        let shared = "usr/share/GNUstep/Applications/Cenon.app/Resources"
        tree.plist(shared + "/Info-gnustep.plist", .dictionary([
            "CFBundleIdentifier": .string("vhf.Cenon"), "NSExecutable": .string("Cenon"), "ApplicationName": .string("Cenon")]), format: .openStep)
        tree.strings(shared + "/German.lproj/Localizable.strings", ["Open": "Öffnen"])
        tree.strings(shared + "/English.lproj/Localizable.strings", ["Open": "Open"])
        tree.text("Cenon", "elf")
        tree.text(app + "/Cenon", "elf")
        tree.symlink(app + "/Resources", to: "../../../../share/GNUstep/Applications/Cenon.app/Resources")
        // A bundle whose Resources is a real directory of per-file links, one absolute.
        let other = "usr/lib/GNUstep/Applications/Other.app"
        tree.text("usr/share/GNUstep/Other/Info-gnustep.plist", "{ CFBundleIdentifier = org.example.other; }")
        tree.text("usr/share/GNUstep/Other/logo.tiff", "tiff")
        tree.symlink(other + "/Resources/Info-gnustep.plist", to: "../../../../../share/GNUstep/Other/Info-gnustep.plist")
        tree.symlink(other + "/Resources/logo.tiff", to: tree.path("usr/share/GNUstep/Other/logo.tiff"))

        let root = try ScanRoot.fileSystemRoot()
        func read(_ relative: String) throws -> BundleRecord {
            try #require(BundleInspector(root: root).inspect(try DirectoryContext.open(FilePath(tree.path(relative)), in: root)))
        }
        let cenon = try read(app)
        #expect(cenon.identifier == "vhf.Cenon")
        #expect(cenon.localizations == ["English", "German"])
        let resolver = try ResourceResolver(record: cenon)
        #expect(try resolver.resolve("Info-gnustep.plist", languages: english) != nil)
        for localization in cenon.localizations {
            let language = localization == "German" ? LanguageTag("de")! : LanguageTag("en")!
            #expect(try resolver.resolve("Localizable.strings", languages: [language])?.localization == localization)
        }
        let otherRecord = try read(other)
        #expect(otherRecord.identifier == "org.example.other")
        #expect(try ResourceResolver(record: otherRecord).resolve("logo.tiff", languages: english) != nil)
        // Confined to the tree of /usr/lib only (the view's SOURCE), nothing leads out.
        let confined = try ResourceResolver(record: cenon, within: try ScanRoot(path: FilePath(tree.path("usr/lib"))))
        #expect(try confined.resolve("Info-gnustep.plist", languages: english) == nil)
    }
}
