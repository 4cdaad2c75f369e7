import BundleModel
import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// The watcher keeps archives' bundles live (SPEC.md, "Bundles inside archives"): an `.ipa` copied
/// in is catalogued, a newer build renamed over it replaces its bundles, a removed one takes them.
@Suite(.serialized) struct ArchiveWatchTests {
    func versions(_ fixture: WatchFixture) throws -> [String] {
        try Catalogue(path: fixture.catalogue, mode: .readOnly).bundles(matching: BundleQuery(identifier: "com.example.shipped", inArchives: true))
            .compactMap(\.record.version)
    }

    /// Zips an app of `version` beside the tree and renames it to `name` inside, as a copy tool does.
    func deliver(_ fixture: WatchFixture, _ name: String, version: String) throws {
        let staging = TreeWriter(root: fixture.directory.appending("staging-\(version)"))
        staging.macApp("Payload/Shipped.app", identifier: "com.example.shipped", info: ["CFBundleVersion": .string(version)])
        let zip = fixture.directory.appending("staging-\(version).ipa")
        let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", zip, "Payload"], directory: staging.root)
        try #require(zipped.status == 0, "\(zipped)")
        try #require(rename(zip, fixture.tree.path(name)) == 0)
    }

    @Test func anIPACopiedInReplacedAndRemoved() throws {
        let fixture = WatchFixture()
        fixture.tree.macApp("Apps/Loose.app", identifier: "com.example.loose")
        try fixture.start()
        try fixture.converge("initial index")

        try deliver(fixture, "Apps/Shipped.ipa", version: "1.0")
        try poll(timeout: 5, "the copied ipa's app") { try versions(fixture) == ["1.0"] }
        try deliver(fixture, "Apps/Shipped.ipa", version: "2.0")
        try poll(timeout: 5, "the newer build") { try versions(fixture) == ["2.0"] }
        try fixture.converge("after the replacement")
        unlink(fixture.tree.path("Apps/Shipped.ipa"))
        try poll(timeout: 5, "the removed ipa's app to go") { try versions(fixture).isEmpty }
        try fixture.converge("after the removal")
        #expect(try fixture.identifiers() == ["com.example.loose"])
        #expect(try fixture.watcher!.stop() == 0)
    }
}
