import BundleModel
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Time Machine backups through the command line (SPEC.md, "Installers and backups"): kind
/// `backup` with `backup` in the JSON, `show`'s lines, `query --kind backup`, a sparse bundle that
/// is not a backup, and broken machine files.
@Suite struct BackupCommandTests {
    let temporary = TemporaryDirectory("backup-commands")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("catalogue.sqlite") }

    func bundlefs(_ arguments: String...) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue)
    }

    @Test func backupsAreCataloguedShownAndQueried() throws {
        var studio = TreeWriter.Backup()
        studio.model = "Mac14,13"
        studio.bands = 3_000
        studio.bandBytes = 8_192
        studio.snapshots = [810_000_000, 812_000_000, 811_000_000]
        tree.timeMachineBackup("Shares/TimeMachine/Studio.sparsebundle", studio)
        var laptop = TreeWriter.Backup()
        laptop.snapshots = []
        laptop.bands = 3
        tree.timeMachineBackup("Shares/TimeMachine/Laptop.sparsebundle", laptop)
        // A disk image that is not a backup, and a backup whose machine file is broken.
        tree.plist("Shares/Images/Disk.sparsebundle/Info.plist", .dictionary(["band-size": .integer(8 << 20), "size": .integer(1 << 30)]))
        tree.directory("Shares/Images/Disk.sparsebundle/bands")
        tree.timeMachineBackup("Shares/TimeMachine/Broken.sparsebundle", TreeWriter.Backup())
        tree.text("Shares/TimeMachine/Broken.sparsebundle/com.apple.TimeMachine.MachineID.plist", "<plist><dict><key>x</key>")
        tree.macApp("Apps/Plain.app", identifier: "org.example.plain")
        #expect(try bundlefs("index", tree.root).status == 0)

        let backups = try #require(try JSONValue.parse(try bundlefs("query", "--kind", "backup", "--json").standardOutput).arrayValue)
        #expect(backups.compactMap { $0["name"]?.stringValue }.sorted() == ["Broken.sparsebundle", "Laptop.sparsebundle", "Studio.sparsebundle"])
        let studioJSON = try #require(backups.first { $0["name"] == .string("Studio.sparsebundle") }?["backup"])
        #expect(studioJSON["model"] == .string("Mac14,13"))
        #expect(studioJSON["hostUUID"] == .string(studio.hostUUID))
        #expect(studioJSON["snapshots"] == .integer(3))
        #expect(studioJSON["lastSnapshot"] == .string(PlistDate.formatISO8601(812_000_000)))
        #expect(studioJSON["size"] == .integer(studio.imageSize))
        #expect(studioJSON["bands"] == .integer(3_000))
        // Each 8 KiB band takes at least its bytes on disk; the sum is the file system's blocks.
        let onDisk = try #require(studioJSON["sizeOnDisk"].flatMap { if case let .integer(value) = $0 { value } else { nil } })
        #expect(onDisk >= 3_000 * 8_192 && onDisk < 3_000 * 8_192 * 4, "\(onDisk)")
        let laptopJSON = try #require(backups.first { $0["name"] == .string("Laptop.sparsebundle") }?["backup"])
        #expect(laptopJSON["snapshots"] == .integer(0) && laptopJSON["lastSnapshot"] == .null && laptopJSON["bands"] == .integer(3))
        let broken = try #require(backups.first { $0["name"] == .string("Broken.sparsebundle") })
        #expect(broken["backup"]?["model"] == .null)
        #expect(broken["errors"]?.arrayValue?.contains { $0.stringValue?.contains("com.apple.TimeMachine.MachineID.plist") == true } == true, "\(broken)")

        // The disk image is a package, not a backup; an application has no `backup`.
        let shownDisk = try JSONValue.parse(try bundlefs("show", tree.path("Shares/Images/Disk.sparsebundle"), "--json").standardOutput)
        let disk = shownDisk.arrayValue?.first ?? shownDisk
        #expect(disk["kind"] != .string("backup") && disk["backup"] == .null)
        let plain = try JSONValue.parse(try bundlefs("query", "org.example.plain", "--json").standardOutput).arrayValue?.first
        #expect(plain?["backup"] == .null)

        let shown = try bundlefs("show", tree.path("Shares/TimeMachine/Studio.sparsebundle"))
        #expect(shown.status == 0)
        #expect(shown.standardOutput.contains("Kind:") && shown.standardOutput.contains("backup"))
        #expect(shown.standardOutput.contains("Backed-up Mac:") && shown.standardOutput.contains("Mac14,13"), "\(shown)")
        #expect(shown.standardOutput.contains("Snapshots:") && shown.standardOutput.contains("3, the last completed \(PlistDate.formatISO8601(812_000_000))"))
        #expect(shown.standardOutput.contains("in 3000 bands of 8388608 bytes"))
    }
}
