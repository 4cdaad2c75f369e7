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
    /// SPEC.md, "Launch Services": a plain document in the view carries
    /// `user.bundle.default-application`, the identifier `open-with` puts first, kept current by
    /// the update stream and asked of the catalogue once per extension between two updates.
    @Suite struct DefaultApplicationTests {
        let fixture = ViewFixture()
        static let name = "user.bundle.default-application"

        /// An editor that exports `.sketch` and owns it, a viewer of every image.
        init() {
            let tree = fixture.tree
            let sketchType: PlistValue = .array([.dictionary([
                "UTTypeIdentifier": .string("org.example.sketch"), "UTTypeConformsTo": .array([.string("public.data"), .string("public.content")]),
                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("sketch")])]),
            ])])
            tree.macApp("Apps/Sketch.app", identifier: "org.example.sketch-editor", info: [
                "UTExportedTypeDeclarations": sketchType,
                "CFBundleDocumentTypes": .array([.dictionary([
                    "LSItemContentTypes": .array([.string("org.example.sketch")]), "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Owner"),
                ])]),
            ])
            tree.macApp("Apps/Viewer.app", identifier: "org.example.viewer", info: [
                "CFBundleDocumentTypes": .array([.dictionary([
                    "LSItemContentTypes": .array([.string("public.image")]), "CFBundleTypeRole": .string("Viewer"),
                ])]),
            ])
            tree.text("Drawings/drawing.sketch", "lines\n")
            tree.text("Drawings/photo.jpg", "pixels\n")
            tree.text("Drawings/notes.unknownext", "words\n")
            // Extensions that are NFC and NFD twins, each claimed by its own application.
            for (form, ext) in [("nfc", "caf\u{E9}"), ("nfd", "cafe\u{301}")] {
                tree.macApp("Apps/\(form).app", identifier: "org.example.\(form)", info: [
                    "CFBundleDocumentTypes": .array([.dictionary(["CFBundleTypeExtensions": .array([.string(ext)])])]),
                ])
                tree.text("Drawings/\(form).\(ext)", "text\n")
            }
            tree.text("Apps/Viewer.app/Contents/Resources/sample.jpg", "pixels\n")
        }

        func attribute(_ path: String) -> String? {
            ((try? ExtendedAttributes.value(Self.name, atPath: FilePath(path))) ?? nil).map { String(decoding: $0, as: UTF8.self) }
        }

        func listed(_ path: String) throws -> Bool { try ExtendedAttributes.names(atPath: FilePath(path)).contains(Self.name) }

        @Test func plainDocumentsNameTheirDefaultApplicationAndFollowNewApplications() throws {
            let view = try fixture.mount(languages: "en")
            let drawing = view.path("Drawings/drawing.sketch"), photo = view.path("Drawings/photo.jpg")
            let unknown = view.path("Drawings/notes.unknownext")
            #expect(attribute(drawing) == "org.example.sketch-editor")
            #expect(attribute(photo) == "org.example.viewer")
            #expect(attribute(unknown) == nil)
            // One cached answer per extension's bytes: the second twin asked gets its own.
            #expect(attribute(view.path("Drawings/nfc.caf\u{E9}")) == "org.example.nfc")
            #expect(attribute(view.path("Drawings/nfd.cafe\u{301}")) == "org.example.nfd")
            #expect(try listed(drawing) && listed(photo))
            #expect(try !listed(unknown))
            // Nothing claims a folder here; an application's own files are inside a package.
            #expect(attribute(view.path("Drawings")) == nil)
            #expect(attribute(view.path("Apps/Viewer.app/Contents/Resources/sample.jpg")) == nil)
            #expect(attribute(fixture.tree.path("Drawings/photo.jpg")) == nil) // the view's, not the file's

            // An application that owns jpg, renamed into SOURCE whole: the view's answer follows.
            let staging = TreeWriter(root: fixture.directory.appending("staging"))
            staging.macApp("Photos.app", identifier: "org.example.photos", info: [
                "CFBundleDocumentTypes": .array([.dictionary([
                    "CFBundleTypeExtensions": .array([.string("jpg")]), "CFBundleTypeRole": .string("Editor"), "LSHandlerRank": .string("Owner"),
                ])]),
            ])
            try #require(rename(staging.path("Photos.app"), fixture.tree.path("Apps/Photos.app")) == 0)
            try poll(timeout: 60, "photo.jpg's default application to become the new owner") { attribute(photo) == "org.example.photos" }
            #expect(attribute(drawing) == "org.example.sketch-editor")
            #expect(attribute(unknown) == nil)
        }

        /// `getfattr -d` over a directory asks the catalogue once per question (its `.txt` files,
        /// the folder itself), and `ls -l` not at all.
        @Test func aDirectoryOfDocumentsCostsOneRanking() throws {
            for index in 0..<300 { fixture.tree.text("Texts/file-\(index).txt", "text \(index)\n") }
            let view = try fixture.mount(languages: "en")
            let before = try requestCounts(view)
            let listed = try Subprocess.run("/bin/ls", ["-l", view.path("Texts")])
            try #require(listed.status == 0, "\(listed)")
            let afterListing = try requestCounts(view)
            #expect(afterListing["ranking"] == before["ranking"], "ls -l ran the ranking")
            let dumped = try Subprocess.run("/usr/bin/getfattr", ["-R", "-d", view.path("Texts")])
            try #require(dumped.status == 0, "\(dumped)")
            let after = try requestCounts(view)
            #expect((after["listxattr"] ?? 0) - (afterListing["listxattr"] ?? 0) >= 300, "\(afterListing) \(after)")
            #expect((after["ranking"] ?? 0) - (afterListing["ranking"] ?? 0) == 2, "\(before) \(after)")
        }

        /// The attribute is read as the file's other attributes are: the kernel lets whoever may
        /// read the file read it, and nobody else.
        @Test func anotherUserReadsItOnlyOnFilesTheyMayRead() throws {
            chmod(fixture.directory.path, 0o755)
            fixture.tree.text("Drawings/private.sketch", "mine\n", mode: 0o600)
            let user = try SystemUser()
            let view = try fixture.mount(languages: "en", arguments: ["--allow-other"])
            func read(_ relative: String) throws -> ProcessResult {
                try user.run("/usr/bin/getfattr", ["--only-values", "-n", Self.name, view.path(relative)])
            }
            let open = try read("Drawings/drawing.sketch")
            #expect(open.status == 0 && open.standardOutput == "org.example.sketch-editor", "\(open)")
            let closed = try read("Drawings/private.sketch")
            #expect(closed.status != 0 && closed.standardError.contains("Permission denied"), "\(closed)")
            #expect(attribute(view.path("Drawings/private.sketch")) == "org.example.sketch-editor") // its owner, root here
        }
    }
}
