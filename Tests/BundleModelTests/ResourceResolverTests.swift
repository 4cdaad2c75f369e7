import BundleModel
import Fixtures
import Testing
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
        #expect(try resolver.candidates(for: "x", languages: german).map(\.relative) == ["x", "de.lproj/x", "Base.lproj/x", "en.lproj/x"])
    }

    @Test func namesAreCaseSensitive() throws {
        tree.macApp("C.app", identifier: "com.example.c")
        tree.text("C.app/Contents/Resources/Icon.png", "png")
        #expect(try resolver("C.app").resolve("icon.png", languages: english) == nil)
    }

    @Test func pathsNeverLeaveTheBundle() throws {
        tree.macApp("D.app", identifier: "com.example.d")
        tree.text("secret.txt", "outside")
        tree.symlink("D.app/Contents/Resources/link.txt", to: "../../../secret.txt")
        tree.symlink("D.app/Contents/Resources/abs.txt", to: tree.path("secret.txt"))
        tree.symlink("D.app/Contents/Resources/inside.txt", to: "../Info.plist")
        let resolver = try resolver("D.app")
        #expect(try resolver.resolve("link.txt", languages: english) == nil)
        #expect(try resolver.resolve("abs.txt", languages: english) == nil)
        #expect(try resolver.resolve("inside.txt", languages: english) != nil)
        #expect(throws: ResourceResolver.Problem.self) { try resolver.resolve("../Info.plist", languages: english) }
        #expect(throws: ResourceResolver.Problem.self) { try resolver.resolve("/etc/passwd", languages: english) }
        #expect(throws: ResourceResolver.Problem.self) { try resolver.resolve("en.lproj/x", languages: english) }
    }
}
