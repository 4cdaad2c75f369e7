import BundleModel
import Catalogue
import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Rule 14 followed live: the watcher recomputes only the claims of the bundles that changed,
/// unless a type declaration changed. After every kind of change the catalogue equals a fresh
/// index's (claims included), and the claimed directories read as packages.
@Suite(.serialized) struct PackageClaimWatchTests {
    static func claimingPackages(_ ext: String, icon: String? = nil) -> [String: PlistValue] {
        var type: [String: PlistValue] = ["CFBundleTypeExtensions": .array([.string(ext)]), "LSTypeIsPackage": .bool(true)]
        if let icon { type["CFBundleTypeIconFile"] = .string(icon) }
        return ["CFBundleDocumentTypes": .array([.dictionary(type)])]
    }

    static func declaring(_ type: String, ext: String, conformsTo parent: String) -> [String: PlistValue] {
        ["UTExportedTypeDeclarations": .array([.dictionary([
            "UTTypeIdentifier": .string(type), "UTTypeConformsTo": .array([.string(parent)]),
            "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string(ext)])]),
        ])])]
    }

    func isPackage(_ fixture: WatchFixture, _ relative: String) throws -> Bool {
        try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: fixture.tree.path(relative))?.record.packageReasons == .claimed
    }

    @Test func claimsFollowDocumentTypesDeclarationsRenamesAndRemovals() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        tree.text("Documents/Doc.pkgdoc/index.xml", "<doc/>")
        tree.text("Documents/Budget.pkgsheet/data.xml", "<sheet/>")
        tree.macApp("Apps/Plain.app", identifier: "org.example.plain")
        tree.macApp("Apps/Other.app", identifier: "org.example.other", info: Self.claimingPackages("unrelated"))
        try fixture.start()
        try fixture.converge("initial index")
        #expect(try !isPackage(fixture, "Documents/Doc.pkgdoc"))

        // The first change after a scan computes claims whole (and the book with them). The
        // claimed documents show the claiming type's icon (rule 21), which moves with a rename.
        tree.file("Apps/Plain.app/Contents/Resources/Doc.icns", IconFixtures.icns([("ic07", IconFixtures.png(IconFixtures.disc(side: 16, red: 9, green: 9, blue: 9)))]))
        tree.macApp("Apps/Plain.app", identifier: "org.example.plain", info: Self.claimingPackages("pkgdoc", icon: "Doc.icns"))
        try fixture.converge("an application's document types now claim pkgdoc")
        #expect(try isPackage(fixture, "Documents/Doc.pkgdoc"))

        // A change that brings nothing new to rule 14: the claims stay.
        tree.macApp("Apps/Plain.app", identifier: "org.example.plain", info: Self.claimingPackages("pkgdoc", icon: "Doc.icns").merging(["CFBundleVersion": .string("2")]) { $1 })
        try fixture.converge("a version bump")
        #expect(try isPackage(fixture, "Documents/Doc.pkgdoc"))

        // A viewer of a type nobody declares claims nothing; a declaration that makes it a
        // package type, from another application, changes the viewer's claims.
        tree.macApp("Apps/Viewer.app", identifier: "org.example.viewer", info: [
            "CFBundleDocumentTypes": .array([.dictionary(["LSItemContentTypes": .array([.string("org.example.sheet")])])]),
        ])
        try fixture.converge("a viewer of an undeclared type")
        #expect(try !isPackage(fixture, "Documents/Budget.pkgsheet"))
        tree.macApp("Apps/Declarer.app", identifier: "org.example.declarer", info: Self.declaring("org.example.sheet", ext: "pkgsheet", conformsTo: "com.apple.package"))
        try fixture.converge("the type declared a package type")
        #expect(try isPackage(fixture, "Documents/Budget.pkgsheet"))

        // Renamed: the claims stay with the application, under its new path.
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Doc.pkgdoc"))?.record.icon
                == FilePath(tree.path("Apps/Plain.app/Contents/Resources/Doc.icns")))
        tree.rename("Apps/Plain.app", "Apps/Renamed.app")
        try fixture.converge("a claiming application renamed")
        #expect(try isPackage(fixture, "Documents/Doc.pkgdoc"))
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Doc.pkgdoc"))?.record.icon
                == FilePath(tree.path("Apps/Renamed.app/Contents/Resources/Doc.icns")))
        tree.rename("Apps/Declarer.app", "Apps/Declarer Moved.app")
        try fixture.converge("a declaring application renamed")
        #expect(try isPackage(fixture, "Documents/Budget.pkgsheet"))

        // The folder above renamed: the application is not read again, its rows move; the icon
        // it names for claimed documents moves too.
        tree.rename("Apps", "Programs")
        try fixture.converge("the applications' folder renamed")
        #expect(try Catalogue(path: fixture.catalogue, mode: .readOnly).bundle(atPath: tree.path("Documents/Doc.pkgdoc"))?.record.icon
                == FilePath(tree.path("Programs/Renamed.app/Contents/Resources/Doc.icns")))
        tree.rename("Programs", "Apps")
        try fixture.converge("the applications' folder renamed back")

        // The declaration no longer conforms to a package type: the viewer's claim goes.
        tree.macApp("Apps/Declarer Moved.app", identifier: "org.example.declarer", info: Self.declaring("org.example.sheet", ext: "pkgsheet", conformsTo: "public.data"))
        try fixture.converge("the declaration changed")
        #expect(try !isPackage(fixture, "Documents/Budget.pkgsheet"))

        // A whole folder of applications goes at once.
        tree.remove("Apps")
        try fixture.converge("the applications' folder removed")
        #expect(try !isPackage(fixture, "Documents/Doc.pkgdoc"))

        // And comes back, from outside the tree.
        fixture.outside.macApp("Apps/Plain.app", identifier: "org.example.plain", info: Self.claimingPackages("pkgdoc"))
        try FileNameCoding.withCString(fixture.outside.path("Apps")) { from in
            try FileNameCoding.withCString(tree.path("Apps")) { #expect(Glibc.rename(from, $0) == 0) }
        }
        try fixture.converge("a folder of applications moved in")
        #expect(try isPackage(fixture, "Documents/Doc.pkgdoc"))
        #expect(try fixture.watcher!.stop() == 0)
    }

    /// A claiming application replaced by a copy within one batch (moved away and another moved
    /// in): the catalogue deletes its row, and the claims with it, and writes a new one; the
    /// claims must be written again though what the application brings did not change.
    @Test func anApplicationReplacedWithinOneBatchKeepsItsClaims() throws {
        let fixture = WatchFixture()
        let tree = fixture.tree
        tree.text("Documents/Doc.pkgdoc/index.xml", "<doc/>")
        tree.macApp("Apps/Plain.app", identifier: "org.example.plain", info: Self.claimingPackages("pkgdoc"))
        // A long settle time puts the two moves below in one batch.
        try fixture.start(environment: ["BUNDLEFS_SETTLE_MS": "500"])
        try fixture.converge("initial index")
        // The first change after the scan builds the book.
        tree.macApp("Apps/Other.app", identifier: "org.example.other", info: Self.claimingPackages("other"))
        try fixture.converge("another claiming application")
        for round in 0..<3 {
            fixture.outside.macApp("New\(round)/Plain.app", identifier: "org.example.plain", info: Self.claimingPackages("pkgdoc"))
            try FileNameCoding.withCString(tree.path("Apps/Plain.app")) { from in
                try FileNameCoding.withCString(fixture.outside.path("Old\(round).app")) { #expect(Glibc.rename(from, $0) == 0) }
            }
            try FileNameCoding.withCString(fixture.outside.path("New\(round)/Plain.app")) { from in
                try FileNameCoding.withCString(tree.path("Apps/Plain.app")) { #expect(Glibc.rename(from, $0) == 0) }
            }
            try fixture.converge("the application replaced, round \(round)")
            #expect(try isPackage(fixture, "Documents/Doc.pkgdoc"))
        }
        #expect(try fixture.watcher!.stop() == 0)
    }
}
