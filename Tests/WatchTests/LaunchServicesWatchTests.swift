import BundleModel
import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Launch Services' answers follow the tree (SPEC.md): an application that appears, changes its
/// claims or goes changes `open-with` within the watcher's latency.
@Suite(.serialized) struct LaunchServicesWatchTests {
    func handlers(_ fixture: WatchFixture, _ ext: String) throws -> [String] {
        try Catalogue(path: fixture.catalogue, mode: .readOnly).handlers(of: .file(extension: ext)).map { $0.application.path.lastComponent.string }
    }

    static func claiming(_ ext: String, rank: String) -> [String: PlistValue] {
        ["CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string(ext)]), "LSHandlerRank": .string(rank)])])]
    }

    @Test func anApplicationThatAppearsChangesOrGoesChangesTheAnswers() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        tree.macApp("Apps/First.app", identifier: "org.example.first", info: Self.claiming("note", rank: "Default"))
        try fixture.start()
        try fixture.converge("initial index")
        #expect(try handlers(fixture, "note") == ["First.app"])

        tree.macApp("Apps/Second.app", identifier: "org.example.second", info: Self.claiming("note", rank: "Owner"))
        try poll(timeout: 5, "the new application's claim") { try handlers(fixture, "note") == ["Second.app", "First.app"] }

        tree.plist("Apps/Second.app/Contents/Info.plist", .dictionary(Self.claiming("note", rank: "Alternate").merging([
            "CFBundleIdentifier": .string("org.example.second"), "CFBundlePackageType": .string("APPL"), "CFBundleExecutable": .string("Second"),
        ]) { $1 }))
        try poll(timeout: 5, "the changed rank") { try handlers(fixture, "note") == ["First.app", "Second.app"] }

        tree.remove("Apps/First.app")
        try poll(timeout: 5, "the removed application's claim to go") { try handlers(fixture, "note") == ["Second.app"] }

        // A folder of applications renamed: its rows move by one UPDATE, the claims' paths with them.
        tree.rename("Apps", "Programs")
        func paths() throws -> [String] {
            try Catalogue(path: fixture.catalogue, mode: .readOnly).handlers(of: .file(extension: "note")).map(\.application.path.string)
        }
        try poll(timeout: 5, "the answer to name the renamed folder: \((try? paths()) ?? [])") { try paths() == [tree.path("Programs/Second.app")] }
        try fixture.converge("after the changes")
        #expect(try fixture.watcher!.stop() == 0)
    }
}
