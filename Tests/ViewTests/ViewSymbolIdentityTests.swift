import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// Issue 37: the view's symbol stores and by-uuid serve only the file the catalogue recorded,
    /// as the HTTP server does (`Catalogue.openRecorded` decides for both). The views here watch
    /// nothing (no inotify watch, no rescan within the test), so a swap stays unread by the
    /// watcher for as long as the test looks.
    @Suite struct SymbolIdentityTests {
        let fixture = ViewFixture()
        let uuid = MachOImage.uuid(seed: 71)
        static let executable = SymbolFileSwap.executable

        init() {
            chmod(fixture.directory.path, 0o755)
            fixture.tree.machOApp("Builds/Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: uuid).bytes())
            var dwarf = MachOImage.arm64(uuid: uuid)
            dwarf.fileType = 10
            fixture.tree.dSYM("Builds/Tool.app.dSYM", dwarfName: "Tool", dwarf: dwarf.bytes())
        }

        typealias Swap = SymbolFileSwap

        /// A view of the fixture's tree on catalogue `catalogue`; `watching` false: it does not
        /// follow the tree after its first index.
        func mount(_ name: String, catalogue: String = "shared", watching: Bool) throws -> MountedView {
            try MountedView(source: fixture.source, mountPoint: fixture.directory.appending("mnt-\(name)"),
                            catalogue: fixture.directory.appending("cache-\(catalogue)/catalogue.sqlite"), languages: "en",
                            logFile: fixture.directory.appending("mount-\(name).log"),
                            environment: watching ? [:] : ["BUNDLEFS_BACKEND": "inotify", "BUNDLEFS_WATCH_LIMIT": "0", "BUNDLEFS_RESCAN_INTERVAL": "3600"])
        }

        var hex: String { uuid.map { String(format: "%02x", $0) }.joined() }
        /// The executable's paths in `native`, `unified` and by-uuid.
        func executablePaths(_ view: MountedView) -> [String] {
            let key = hex.uppercased()
            let native = stride(from: 0, to: 20, by: 4).map { String(key.dropFirst($0).prefix(4)) }.joined(separator: "/") + "/" + key.suffix(12)
            return [view.path(".bundlefs/symbols/native/\(native).app"),
                    view.path(".bundlefs/symbols/unified/\(hex.prefix(2))/\(hex.dropFirst(2))/executable"),
                    view.path(".bundlefs/by-uuid/\(BinarySlice.canonicalUUID(uuid))/executable")]
        }

        @Test(arguments: Swap.replacements)
        func anExecutableSwappedSinceItWasIndexedIsNotServed(_ swap: Swap) throws {
            let view = try mount("\(swap)", watching: false)
            let dwarf = try contents(fixture.tree.path("Builds/Tool.app.dSYM/Contents/Resources/DWARF/Tool"))
            try swap.apply(to: fixture.tree)
            for path in executablePaths(view) {
                #expect(throws: (any Error).self, "\(swap): \(path)") { try contents(path) }
            }
            #expect(try !listing(view.path(".bundlefs/symbols/unified/\(hex.prefix(2))/\(hex.dropFirst(2))")).contains("executable"))
            #expect(try contents(view.path(".bundlefs/symbols/unified/\(hex.prefix(2))/\(hex.dropFirst(2))/debuginfo")) == dwarf)
            try poll(timeout: 10, "the refusal in the log:\n\(view.log)") {
                view.log.contains("Builds/Tool.app/Contents/MacOS/Tool: not served: changed since it was indexed")
            }
        }

        /// A rebuild is not served until it is read again; a view started on the same catalogue
        /// reads it again (the watcher's start) and serves it.
        @Test func aRebuiltExecutableIsServedOnceReadAgain() throws {
            let first = try mount("first", watching: false)
            let rebuilt = { var image = MachOImage.arm64(uuid: uuid); image.bodySize = 128; return image.bytes() }()
            fixture.tree.file(Self.executable + ".new", rebuilt, mode: 0o755)
            fixture.tree.rename(Self.executable + ".new", Self.executable)
            for path in executablePaths(first) {
                #expect(throws: (any Error).self, "\(path)") { try contents(path) }
            }
            try first.stop()
            let second = try mount("second", watching: true)
            for path in executablePaths(second) {
                try poll(timeout: 30, "\(path) to serve the rebuilt executable") { (try? contents(path)) == rebuilt }
            }
        }
    }
}
