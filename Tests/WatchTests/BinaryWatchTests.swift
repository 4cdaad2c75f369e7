import BundleModel
import Catalogue
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// The watcher re-reads a bundle whose executable or DWARF file changes (SPEC.md, "Executables
/// and debug symbols"), and a restart notices an executable rebuilt while it was stopped.
@Suite(.serialized) struct BinaryWatchTests {
    func uuids(_ fixture: WatchFixture, _ relative: String) throws -> [String] {
        try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: fixture.tree.path(relative))?.record.binaries.compactMap(\.uuid) ?? []
    }

    @Test func rebuiltExecutablesAndDWARFFilesAreReadAgain() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        tree.machOApp("Build/App.app", identifier: "com.example.app", executable: MachOImage.arm64(uuid: MachOImage.uuid(seed: 31)).bytes())
        tree.dSYM("Build/App.app.dSYM", dwarfName: "App", dwarf: MachOImage.arm64(uuid: MachOImage.uuid(seed: 31)).bytes())
        try fixture.start()
        try fixture.converge("initial index")
        #expect(try uuids(fixture, "Build/App.app") == [BinarySlice.canonicalUUID(MachOImage.uuid(seed: 31))])

        // Written in place (truncate and write: no directory changes), as a linker does.
        let rebuilt = MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 32)), .arm64(uuid: MachOImage.uuid(seed: 33))])
        let executable = try Descriptor.open(FilePath(tree.path("Build/App.app/Contents/MacOS/App")), flags: O_WRONLY | O_TRUNC)
        #expect(rebuilt.withUnsafeBytes { Glibc.write(executable.rawValue, $0.baseAddress, $0.count) } == rebuilt.count)
        try poll(timeout: 5, "the rebuilt executable's UUIDs") {
            try uuids(fixture, "Build/App.app") == [32, 33].map { BinarySlice.canonicalUUID(MachOImage.uuid(seed: $0)) }
        }
        // Replaced by rename, as dsymutil does.
        tree.file("Build/App.app.dSYM/Contents/Resources/DWARF/.App.tmp", MachOImage.arm64(uuid: MachOImage.uuid(seed: 33)).bytes())
        tree.rename("Build/App.app.dSYM/Contents/Resources/DWARF/.App.tmp", "Build/App.app.dSYM/Contents/Resources/DWARF/App")
        try poll(timeout: 5, "the new DWARF file's UUID") {
            try uuids(fixture, "Build/App.app.dSYM") == [BinarySlice.canonicalUUID(MachOImage.uuid(seed: 33))]
        }
        try fixture.converge("after the rebuild")
        #expect(try fixture.watcher!.stop() == 0)

        // Rebuilt while stopped: the file's stamp tells the next start.
        tree.file("Build/App.app/Contents/MacOS/App", MachOImage.arm64(uuid: MachOImage.uuid(seed: 34)).bytes(), mode: 0o755)
        try fixture.start()
        try fixture.converge("restart")
        #expect(try uuids(fixture, "Build/App.app") == [BinarySlice.canonicalUUID(MachOImage.uuid(seed: 34))])
        #expect(try fixture.watcher!.stop() == 0)
    }
}
