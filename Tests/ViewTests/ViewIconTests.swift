import BundleModel
import Fixtures
import Foundation
import IconImages
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// BUNDLES.md section 8 in the view: a bundle view's `Icon.png` is its icon file's largest
    /// image as PNG; a broken icon, or one reached by a link out of SOURCE, is simply not offered.
    @Suite struct Icons {
        let fixture = ViewFixture()

        func writeIconBundles() {
            let tree = fixture.tree
            tree.macApp("Icons/Mac.app", identifier: "org.example.mac", info: ["CFBundleIconFile": .string("Mac")])
            tree.file("Icons/Mac.app/Contents/Resources/Mac.icns", IconFixtures.icns([
                ("ic07", IconFixtures.png(IconFixtures.gradient(side: 128, blue: 1))), ("ic09", IconFixtures.png(IconFixtures.gradient(side: 512))),
            ]))
            tree.macApp("Icons/Packed.app", identifier: "org.example.packed", info: ["CFBundleIconFile": .string("Packed.icns")])
            tree.file("Icons/Packed.app/Contents/Resources/Packed.icns", IconFixtures.packedIcns(IconFixtures.gradient(side: 128)))
            tree.gnustepApp("Icons/Step.app", info: ["CFBundleIdentifier": .string("org.example.step"), "NSIcon": .string("Step.tiff")])
            tree.file("Icons/Step.app/Resources/Step.tiff", IconFixtures.tiff([IconFixtures.gradient(side: 24), IconFixtures.gradient(side: 48)]))
            tree.macApp("Icons/Broken.app", identifier: "org.example.broken", info: ["CFBundleIconFile": .string("Broken.icns")])
            tree.file("Icons/Broken.app/Contents/Resources/Broken.icns", Array("icns".utf8) + [0, 0, 0, 16] + Array("ic09".utf8) + [0, 0, 0, 8])
            // An icon that is a link out of SOURCE: found by the index (the tree allows it) only when
            // the link stays inside; here it leads out, so the view never reads it.
            tree.macApp("Icons/Outside.app", identifier: "org.example.outside", info: ["CFBundleIconFile": .string("Out.icns")])
            tree.symlink("Icons/Outside.app/Contents/Resources/Out.icns", to: fixture.directory.appending("outside.icns"))
            writeFile(fixture.directory.appending("outside.icns"), IconFixtures.packedIcns(IconFixtures.gradient(side: 128)))
            // A document package claimed by an application shows the claiming type's icon.
            tree.macApp("Icons/Editor.app", identifier: "org.example.editor", info: [
                "CFBundleDocumentTypes": .array([.dictionary([
                    "CFBundleTypeExtensions": .array([.string("plandoc")]), "LSTypeIsPackage": .bool(true),
                    "CFBundleTypeIconFile": .string("PlanDocument")])]),
            ])
            tree.file("Icons/Editor.app/Contents/Resources/PlanDocument.icns", IconFixtures.tiff([IconFixtures.gradient(side: 40)]))
            tree.text("Icons/Plan.plandoc/contents.xml", "<plan/>\n")
            // iOS: the largest of the primary icon's variants.
            tree.plist("Icons/Pocket.app/Info.plist", .dictionary([
                "CFBundleIdentifier": .string("org.example.pocket"),
                "CFBundleIcons": .dictionary(["CFBundlePrimaryIcon": .dictionary(["CFBundleIconFiles": .array([.string("AppIcon60x60")])])]),
            ]))
            for (suffix, side) in [("", 60), ("@2x", 120), ("@3x", 180)] {
                tree.file("Icons/Pocket.app/AppIcon60x60\(suffix).png", IconFixtures.png(IconFixtures.gradient(side: side)))
            }
        }

        func icon(_ view: MountedView, _ identifier: String) throws -> RGBAImage {
            try PNGCodec.decode(try contents(view.path(".bundlefs/by-id/\(identifier)/Icon.png")))
        }

        @Test func iconPNGIsTheLargestImage() throws {
            writeIconBundles()
            let view = try fixture.mount(languages: "en")
            #expect(try listing(view.path(".bundlefs/by-id/org.example.mac")) == ["Contents", "Icon.png", "Info.plist", "Resources"])
            let mac = try icon(view, "org.example.mac")
            #expect(mac.width == 512 && mac.height == 512)
            #expect(mac.pixel(x: 511, y: 0) == (255, 0, 0x40, 255))
            let packed = try icon(view, "org.example.packed")
            #expect(packed.width == 128 && packed.pixel(x: 127, y: 127) == (255, 255, 0x40, 255))
            #expect(packed.pixel(x: 0, y: 0).a == 0)
            let step = try icon(view, "org.example.step")
            #expect(step.width == 48 && step.pixel(x: 47, y: 0) == (255, 0, 0x40, 255))
            // The size stat gives is the size read.
            let status = try FileStatus.of(view.path(".bundlefs/by-id/org.example.step/Icon.png"))
            let read = try contents(view.path(".bundlefs/by-id/org.example.step/Icon.png"))
            #expect(status.type == .regular && status.size == Int64(read.count))
            // `file` agrees it is a PNG.
            let file = try Subprocess.run("/usr/bin/file", ["-b", view.path(".bundlefs/by-id/org.example.mac/Icon.png")])
            #expect(file.standardOutput.hasPrefix("PNG image data, 512 x 512"), "\(file)")
            let pocket = try icon(view, "org.example.pocket")
            #expect(pocket.width == 180 && pocket.height == 180 && pocket.pixel(x: 179, y: 0) == (255, 0, 0x40, 255))
            // A claimed document package's view: its raw contents and the claiming type's icon.
            let plan = view.path(".bundlefs/by-path/Icons/Plan.plandoc")
            #expect(try listing(plan) == ["Icon.png", "contents.xml"])
            let planIcon = try PNGCodec.decode(try contents(Paths.join(plan, "Icon.png")))
            #expect(planIcon.width == 40 && planIcon.pixel(x: 39, y: 39) == (255, 255, 0x40, 255))
            // The same icon by path.
            #expect(try contents(view.path(".bundlefs/by-path/Icons/Mac.app/Icon.png")) == contents(view.path(".bundlefs/by-id/org.example.mac/Icon.png")))
        }

        // The index never opens icon files, so an icon edited in place changes no record: the view
        // notices the file itself.
        @Test func anIconEditedInPlaceShowsItsNewImage() throws {
            writeIconBundles()
            let view = try fixture.mount(languages: "en")
            #expect(try icon(view, "org.example.packed").width == 128)
            // Rewritten in place: the same inode, a new image.
            fixture.tree.file("Icons/Packed.app/Contents/Resources/Packed.icns", IconFixtures.icns([("ic08", IconFixtures.png(IconFixtures.gradient(side: 256)))]))
            try poll(timeout: 30, "the new image") { (try? icon(view, "org.example.packed").width) == 256 }
        }

        @Test func brokenAndOutsideIconsAreNotOffered() throws {
            writeIconBundles()
            let view = try fixture.mount(languages: "en")
            for identifier in ["org.example.broken", "org.example.outside"] {
                #expect(throws: (any Error).self, "\(identifier)") { try contents(view.path(".bundlefs/by-id/\(identifier)/Icon.png")) }
                // The rest of the view is unaffected.
                #expect(try contents(view.path(".bundlefs/by-id/\(identifier)/Info.plist")).count > 100)
            }
            // Apps with no icon have no Icon.png.
            #expect(!(try listing(view.path(".bundlefs/by-id/org.example.chess"))).contains("Icon.png"))
        }
    }
}

private func writeFile(_ path: String, _ bytes: [UInt8]) {
    TreeWriter(root: Paths.parent(path)).file(Paths.lastComponent(path), bytes)
}
