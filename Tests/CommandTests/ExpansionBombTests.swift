import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A binary Info.plist that names one 1 MiB data object 100,000 times (1.1 MB on disk, 100 GiB
/// expanded): anyone who can write into a watched tree could otherwise exhaust the daemon's memory.
/// It is catalogued with its error, loose and inside an `.ipa`, and the process stays small.
@Suite struct ExpansionBombTests {
    let temporary = TemporaryDirectory("expansion-bomb")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var staging: TreeWriter { TreeWriter(root: temporary.appending("staging")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }
    /// The whole index of this small tree fits in far less; before the budget counted bytes the
    /// process passed 3 GB.
    static let peakBoundKilobytes = 150 << 10

    static let bomb = SharedReferencePlists.info(identifier: "com.example.bomb", dataBytes: 1 << 20, references: 100_000)

    @Test func sharedReferencesAreCataloguedWithAnErrorWithinBoundedMemory() throws {
        tree.file("Bomb.app/Contents/Info.plist", Self.bomb)
        tree.macApp("Sound.app", identifier: "com.example.sound")
        staging.file("Payload/Boxed.app/Info.plist", Self.bomb)
        try FileManager.default.createDirectory(atPath: tree.root, withIntermediateDirectories: true)
        let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", tree.path("Boxed.ipa"), "Payload"], directory: staging.root)
        try #require(zipped.status == 0, "\(zipped)")

        let index = try Subprocess.measuredBundlefs(["index", tree.root], catalogue: catalogue)
        #expect(index.result.status == 0, "\(index.result)")
        #expect(index.peakKilobytes < Self.peakBoundKilobytes, "bundlefs index peaked at \(index.peakKilobytes) kB")

        let rows = try #require(try JSONValue.parse(try Subprocess.bundlefs(["query", "--json"], catalogue: catalogue).standardOutput).arrayValue)
        #expect(rows.contains { $0["identifier"] == .string("com.example.sound") && $0["errors"]?.arrayValue?.isEmpty == true })
        for path in [tree.path("Bomb.app"), tree.path("Boxed.ipa")] {
            let row = try #require(rows.first { $0["path"] == .string(path) }, "\(path) not catalogued")
            let errors = row["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(errors.contains { $0.contains("expands to more than") }, "\(path): \(errors)")
        }

        let show = try Subprocess.measuredBundlefs(["show", tree.path("Bomb.app")], catalogue: catalogue)
        #expect(show.result.status == 0 && show.result.standardOutput.contains("expands to more than"), "\(show.result)")
        #expect(show.peakKilobytes < Self.peakBoundKilobytes, "bundlefs show peaked at \(show.peakKilobytes) kB")
    }
}
