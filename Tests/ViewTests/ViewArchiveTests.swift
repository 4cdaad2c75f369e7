import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// Archives in the view (SPEC.md, "Bundles inside archives"): an archive stays the file it is;
    /// one holding a single application carries its attributes, and by-id reaches its Info.plist.
    @Suite struct ArchiveTests {
        let fixture = ViewFixture()

        /// Zips `Payload/<name>.app` (and any extra apps) into `relative` in SOURCE, renamed into place.
        func deliver(_ relative: String, apps: [(name: String, identifier: String, version: String)]) throws {
            let staging = TreeWriter(root: fixture.directory.appending("staging"))
            removeTree(staging.root)
            for app in apps {
                staging.macApp("Payload/\(app.name).app", identifier: app.identifier,
                               info: ["CFBundleVersion": .string(app.version), "CFBundleName": .string(app.name)])
            }
            fixture.tree.directory(FilePath(relative).parent.string)
            let zip = fixture.directory.appending("staging.zip")
            let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", zip, "Payload"], directory: staging.root)
            try #require(zipped.status == 0, "\(zipped)")
            try #require(rename(zip, fixture.tree.path(relative)) == 0)
        }

        func attribute(_ name: String, _ path: String) -> String? {
            ((try? ExtendedAttributes.value(name, atPath: FilePath(path))) ?? nil).map { String(decoding: $0, as: UTF8.self) }
        }

        @Test func anIPACarriesItsApplicationAndByIDReachesItsInfo() throws {
            try deliver("Downloads/Game.ipa", apps: [("Game", "org.example.game", "1.0")])
            try deliver("Downloads/Suite.zip", apps: [("One", "org.example.one", "1.0"), ("Two", "org.example.two", "1.0")])
            let view = try fixture.mount(languages: "en")
            let ipa = view.path("Downloads/Game.ipa")
            #expect(try FileStatus.of(ipa).type == .regular)
            #expect(try contents(ipa) == contents(fixture.tree.path("Downloads/Game.ipa")))
            #expect(attribute("user.bundle.identifier", ipa) == "org.example.game")
            #expect(attribute("user.bundle.member", ipa) == "Payload/Game.app")
            #expect(attribute("user.bundle.identifier", view.path("Downloads/Suite.zip")) == nil) // two applications: neither
            #expect(try listing(view.path(".bundlefs/by-id/org.example.game")) == ["Info.plist"])
            let info = try PropertyListReader.read(contents(view.path(".bundlefs/by-id/org.example.game/Info.plist"))).value
            #expect(info.dictionary?["CFBundleVersion"] == .string("1.0"))
            #expect(try listing(view.path(".bundlefs/by-id")).contains("org.example.two"))

            // A newer build renamed over it: its attributes and Info.plist follow (how soon is the benchmark's).
            try deliver("Downloads/Game.ipa", apps: [("Game", "org.example.game", "2.0")])
            try poll(timeout: 60, "the newer build's version") { attribute("user.bundle.version", ipa) == "2.0" }
            try poll(timeout: 60, "the newer Info.plist") {
                try PropertyListReader.read(contents(view.path(".bundlefs/by-id/org.example.game/Info.plist"))).value.dictionary?["CFBundleVersion"] == .string("2.0")
            }
            unlink(fixture.tree.path("Downloads/Game.ipa"))
            try poll(timeout: 60, "the removed ipa's identifier to go") { try !listing(view.path(".bundlefs/by-id")).contains("org.example.game") }
        }

        /// An installer package with one application in its payload (rule 33) is described as an
        /// `.ipa` is: the application's identifier and version, and its member in the payload.
        @Test func anInstallerWithOneApplicationCarriesItsAttributes() throws {
            let payload = TreeWriter(root: fixture.directory.appending("payload"))
            payload.macApp("Editor.app", identifier: "org.example.editor", info: ["CFBundleVersion": .string("4.2")])
            fixture.tree.directory("Repository")
            try InstallerPackageBuilder.build(fixture.tree.path("Repository/Editor.pkg"), components: [
                .init(identifier: "org.example.editor.pkg", version: "4.2", installLocation: "/Applications", payload: payload.root,
                      compression: .xz, directory: "Editor.pkg"),
            ], product: ("Editor", "org.example.editor.product", "4.2"), staging: fixture.directory.appending("staging"))
            let view = try fixture.mount(languages: "en")
            let package = view.path("Repository/Editor.pkg")
            #expect(try FileStatus.of(package).type == .regular)
            #expect(attribute("user.bundle.identifier", package) == "org.example.editor")
            #expect(attribute("user.bundle.version", package) == "4.2")
            #expect(attribute("user.bundle.member", package) == "Editor.pkg/Payload/Editor.app")
        }
}
}
