import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// SPEC.md "Faults": the catalogue's file system fills up under `mount`.
    @Suite struct Faults {
        let fixture = ViewFixture()

        /// A view whose catalogue lives on a small disk that is then filled.
        struct FullDisk {
            let disk: TmpfsMount
            let catalogue: String
            let view: MountedView
            let filler: String

            func status() -> JSONValue? {
                (try? Subprocess.bundlefs(["status", "--json"], catalogue: catalogue)).flatMap { try? JSONValue.parse($0.standardOutput) }
            }
        }

        /// Mounts the view, runs `beforeFilling`, fills the catalogue's disk, then writes 300 apps
        /// under `directory`: more than the WAL can take in the space it has (about 5 MB of Info
        /// dictionaries), so the writes fail until space comes back; returns once the status says so.
        func fullDisk(writingUnder directory: String, beforeFilling: (MountedView) throws -> Void = { _ in }) throws -> FullDisk {
            let disk = try TmpfsMount(at: fixture.directory.appending("small"), size: "16m")
            let catalogue = Paths.join(disk.path, "catalogue.sqlite")
            let view = try MountedView(source: fixture.source, mountPoint: fixture.directory.appending("mnt"), catalogue: catalogue,
                                       languages: "en", logFile: fixture.directory.appending("mount.log"))
            do {
                try beforeFilling(view)
                let full = FullDisk(disk: disk, catalogue: catalogue, view: view, filler: disk.fill())
                #expect(disk.available < 64 << 10)
                let padding = String(repeating: "x", count: 16_000)
                for index in 0..<300 {
                    fixture.tree.macApp("\(directory)/App\(index).app", identifier: "org.example.more\(index)",
                                        info: ["CFBundleDisplayName": .string("More \(index)"), "Padding": .string(padding)])
                }
                try poll(timeout: 30, "the status to say the disk is full") { full.status()?["problem"]?.stringValue?.contains("full") == true }
                return full
            } catch {
                _ = try? view.stop()
                throw error
            }
        }

        @Test func aFullCatalogueDiskLeavesTheViewServingUntilSpaceComesBack() throws {
            let full = try fullDisk(writingUnder: "Applications/More")
            let (view, catalogue, filler) = (full.view, full.catalogue, full.filler)
            defer { _ = try? view.stop() }
            func status() -> JSONValue? { full.status() }
            // It stays so while the disk is full, across two of the watcher's retries (with backoff).
            try poll(timeout: 60, "the watcher to retry twice: \(view.log)") {
                view.log.components(separatedBy: "the catalogue is still not current").count > 2
            }
            #expect(status()?["problem"]?.stringValue?.contains("full") == true)
            #expect(view.log.contains("full"), "\(view.log)")
            // The view answers all along: the tree is listed, what was catalogued is shown.
            #expect(view.process.isRunning)
            #expect(try listing(view.path("Applications/More")).count == 300)
            #expect(try listing(view.path("Applications")).contains("Schach") == false)
            #expect(try listing(view.path("Applications")).contains("Chess"))
            #expect(try contents(view.path("Documents/notes.txt")) == Array("notes\n".utf8))

            // Space again: the catalogue converges, and the view shows the new packages.
            #expect(unlink(filler) == 0)
            try waitForConvergence(catalogue: catalogue, root: fixture.source, timeout: 40, "after space was freed")
            try poll(timeout: 60, "the view to show the new packages: \((try? listing(view.path("Applications/More")))?.suffix(3) ?? [])") {
                (try? listing(view.path("Applications/More")))?.contains("App299") == true
            }
            try poll(timeout: 15, "the problem to clear") { status()?["problem"] == .null }
            #expect(view.process.isRunning)
        }

        /// SPEC.md "Faults": another process holding the catalogue locked (an `sqlite3` shell in
        /// `BEGIN EXCLUSIVE`, held until the test lets go) is a fault like a full disk: packages that
        /// appear, are moved and go show in the view within seconds, readers read, `status` says
        /// what is wrong, and the catalogue converges once the lock is gone.
        @Test func theViewFollowsTheTreeWhileAnotherProcessHoldsTheCatalogueLocked() throws {
            fixture.tree.macApp("Applications/Doomed.app", identifier: "org.example.doomed", info: ["CFBundleDisplayName": .string("Doomed")])
            fixture.tree.macApp("Applications/Movable.app", identifier: "org.example.movable", info: ["CFBundleDisplayName": .string("Movable")])
            let view = try fixture.mount(languages: "en")
            defer { _ = try? view.stop() }
            let catalogue = view.catalogue
            func status() -> JSONValue? {
                (try? Subprocess.bundlefs(["status", "--json"], catalogue: catalogue)).flatMap { try? JSONValue.parse($0.standardOutput) }
            }
            func applications() -> [String] { (try? listing(view.path("Applications"))) ?? [] }
            func documents() -> [String] { (try? listing(view.path("Documents"))) ?? [] }
            // The kernel holds these listings: only the watcher's word makes them change.
            #expect(applications().contains("Doomed") && applications().contains("Movable") && !applications().contains("Fresh"))
            #expect(!documents().contains("Movable"))

            let lock = try CatalogueLockHolder(catalogue: catalogue)
            defer { lock.release() }
            fixture.tree.macApp("Applications/Fresh.app", identifier: "org.example.fresh", info: ["CFBundleDisplayName": .string("Fresh")],
                                localizedStrings: ["en": ["CFBundleDisplayName": "Fresh Name"]])
            fixture.tree.rename("Applications/Movable.app", "Documents/Movable.app")
            fixture.tree.remove("Applications/Doomed.app")
            try poll(timeout: 15, "the view to follow the tree while locked: \(applications()), \(documents()); log:\n\(view.log)") {
                let applications = applications()
                return applications.contains("Fresh Name") && !applications.contains("Doomed") && !applications.contains("Movable")
                    && documents().contains("Movable")
            }
            #expect(try FileStatus.of(view.path("Applications/Fresh Name")).type == .regular)
            #expect(try FileStatus.of(view.path("Documents/Movable")).type == .regular)
            try poll(timeout: 15, "the status to say the catalogue is locked: \(String(describing: status()))") {
                status()?["problem"]?.stringValue?.contains("another process holds the catalogue locked") == true
            }
            #expect(status()?["state"] == .string("retrying"))
            #expect(view.log.contains("another process holds the catalogue locked"), "\(view.log)")
            // Readers read what was written before the lock.
            let query = try Subprocess.bundlefs(["query", "org.example.chess"], catalogue: catalogue)
            #expect(query.status == 0 && query.standardOutput.contains("Chess.app"), "\(query)")

            // Still locked, across the watcher's retries (their backoff growing): later packages
            // show too, one at a time.
            try poll(timeout: 60, "the watcher to retry three times: \(view.log)") {
                view.log.components(separatedBy: "the catalogue is still not current").count > 3
            }
            for index in 0..<3 {
                fixture.tree.macApp("Applications/Later\(index).app", identifier: "org.example.later\(index)",
                                    info: ["CFBundleDisplayName": .string("Later\(index)")],
                                    localizedStrings: ["en": ["CFBundleDisplayName": "Later \(index)"]])
                try poll(timeout: 15, "Later \(index) to show while locked: \(applications()); log:\n\(view.log)") {
                    applications().contains("Later \(index)")
                }
            }
            #expect(lock.isHolding)
            #expect(try Catalogue(path: FilePath(catalogue), mode: .readOnly).bundles(matching: BundleQuery(identifier: "org.example.fresh")).isEmpty,
                    "the view followed without the catalogue")

            // The lock goes: what the view showed is what the catalogue now holds.
            lock.release()
            try waitForConvergence(catalogue: catalogue, root: fixture.source, timeout: 40, "after the lock was released")
            try poll(timeout: 15, "the problem to clear") { status()?["problem"] == .null }
            #expect(applications().contains("Fresh Name") && applications().contains("Later 2") && !applications().contains("Doomed"))
            #expect(documents().contains("Movable"))
            #expect(view.process.isRunning)
        }

        /// SPEC.md "Faults": while the catalogue cannot be written, the view still follows the tree:
        /// new, renamed and removed items show within seconds, a new package by what the watcher
        /// read (its display name), and nothing seen is lost when writing resumes.
        @Test func theViewFollowsTheTreeWhileTheCatalogueCannotBeWritten() throws {
            let full = try fullDisk(writingUnder: "Padding") { (view: MountedView) throws in
                // The kernel holds these listings: only the watcher's word makes them change.
                #expect(try listing(view.path("Documents")).contains("notes.txt"))
                #expect(try listing(view.path("Applications")).contains("Chess"))
            }
            let (view, catalogue, filler) = (full.view, full.catalogue, full.filler)
            defer { _ = try? view.stop() }
            func status() -> JSONValue? { full.status() }

            fixture.tree.directory("Documents/New Folder")
            fixture.tree.rename("Documents/notes.txt", "Documents/renamed notes.txt")
            fixture.tree.remove("Documents/hidden-extension.txt")
            fixture.tree.macApp("Applications/Fresh.app", identifier: "org.example.fresh", info: ["CFBundleDisplayName": .string("Fresh")],
                                localizedStrings: ["en": ["CFBundleDisplayName": "Fresh Name"]])
            try poll(timeout: 15, "the view to follow the tree: \((try? listing(view.path("Documents"))) ?? []); log:\n\(view.log)") {
                let documents = try listing(view.path("Documents"))
                return documents.contains("New Folder") && documents.contains("renamed notes.txt") && !documents.contains("notes.txt")
                    && !documents.contains("hidden-extension")
            }
            try poll(timeout: 15, "the new package, by what the watcher read: \((try? listing(view.path("Applications"))) ?? []); log:\n\(view.log)") {
                try listing(view.path("Applications")).contains("Fresh Name")
            }
            #expect(try FileStatus.of(view.path("Applications/Fresh Name")).type == .regular)
            // Packages made over two seconds, across the watcher's retries: those made while a
            // failing retry lists the tree, and those whose events it takes, show too.
            for index in 0..<20 {
                fixture.tree.macApp("Applications/Burst\(index).app", identifier: "org.example.burst\(index)",
                                    info: ["CFBundleDisplayName": .string("Burst\(index)")],
                                    localizedStrings: ["en": ["CFBundleDisplayName": "Burst \(index)"]])
                usleep(100_000)
            }
            try poll(timeout: 15, "the packages made across retries: \((try? listing(view.path("Applications"))) ?? []); log:\n\(view.log)") {
                try listing(view.path("Applications")).filter { $0.hasPrefix("Burst ") }.count == 20
            }
            #expect(status()?["problem"]?.stringValue?.contains("full") == true, "still a fault: the view followed without the catalogue")

            // Space again: what the view showed is what the catalogue now holds.
            #expect(unlink(filler) == 0)
            try waitForConvergence(catalogue: catalogue, root: fixture.source, timeout: 40, "after space was freed")
            #expect(try Catalogue(path: FilePath(catalogue), mode: .readOnly).bundles(matching: BundleQuery(identifier: "org.example.fresh")).count == 1)
            #expect(try listing(view.path("Applications")).contains("Fresh Name"))
            #expect(try listing(view.path("Documents")).contains("New Folder"))
        }
    }
}
