import BundleModel

/// The sample tree that ships in the repository (`Sample/`), written by this code so it can be
/// regenerated (`make sample`) and checked (a test compares the two). It shows each rule of
/// BUNDLES.md on a small scale: localized and renamed apps, a GNUstep app, a versioned framework
/// with symlinks, claimed and finder-bit document packages, a `.localized` folder, strings files in
/// several encodings, and a few broken or hostile bundles.
public enum SampleTree {
    public static func write(to root: String) {
        removeTree(root)
        let tree = TreeWriter(root: root)
        applications(tree)
        documents(tree)
        library(tree)
        oddities(tree)
        tree.text("README.txt", """
            bundlefs sample tree: written by `make sample` (Sources/Fixtures/SampleTree.swift).
            Index it with `bundlefs index Sample`, then try `bundlefs query`, `bundlefs show`, `bundlefs resolve`.

            """)
    }

    /// The arm64 slice's UUID of the sample Chess.app, which its dSYM shares.
    public static let chessArmUUID = MachOImage.uuid(seed: 2027)
    /// The UUID of the sample's old Chess 1.0.app, an x86_64-only build.
    public static let chessIntelOnlyUUID = MachOImage.uuid(seed: 2010)

    static func applications(_ tree: TreeWriter) {
        // BUNDLES.md 7: Chess.app shown as Schach in German; each strings file in another encoding.
        tree.macApp("Applications/Chess.app", identifier: "org.example.Chess", info: [
            "CFBundleDisplayName": .string("Chess"), "CFBundleName": .string("Chess"),
            "CFBundleVersion": .string("2.1.0b7"), "CFBundleShortVersionString": .string("2.1"),
            "CFBundleDevelopmentRegion": .string("en"), "LSHasLocalizedDisplayName": .bool(true),
            "NSHumanReadableCopyright": .string("© 2026 bundlefs sample"), "CFBundleIconFile": .string("Chess"),
        ], localizedStrings: ["de": ["CFBundleDisplayName": "Schach"]], stringsEncoding: .utf16LittleEndianWithBOM)
        // BUNDLES.md 8: an .icns with a 256-pixel PNG member and the old 128-pixel RLE pair.
        tree.file("Applications/Chess.app/Contents/Resources/Chess.icns", IconFixtures.icns([
            ("ic08", IconFixtures.png(IconFixtures.disc(side: 256, red: 0x8B, green: 0x45, blue: 0x13))),
        ] + IconFixtures.icnsMembers(IconFixtures.packedIcns(IconFixtures.disc(side: 128, red: 0x8B, green: 0x45, blue: 0x13)))))
        tree.strings("Applications/Chess.app/Contents/Resources/fr.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Échecs"], as: .binaryPlist)
        tree.strings("Applications/Chess.app/Contents/Resources/en.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Chess"], as: .utf8WithBOM)
        tree.strings("Applications/Chess.app/Contents/Resources/en_GB.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Chess"], as: .utf16BigEndianWithBOM)
        // BUNDLES.md 9: a universal executable (x86_64, and arm64 signed with a team) and, as a build
        // machine leaves it, the dSYM of its arm64 slice; `bundlefs symbols` and by-uuid find both.
        var arm = MachOImage.arm64(uuid: chessArmUUID)
        arm.signature = ("org.example.Chess", "EXAMPLE123")
        tree.file("Applications/Chess.app/Contents/MacOS/Chess", MachOImage.universal([.x86_64(uuid: MachOImage.uuid(seed: 2026)), arm]), mode: 0o755)
        var dwarf = MachOImage.arm64(uuid: chessArmUUID)
        dwarf.fileType = 10
        tree.dSYM("Developer/Chess.app.dSYM", dwarfName: "Chess", dwarf: dwarf.bytes(), identifier: "com.apple.xcode.dsym.org.example.Chess")
        tree.text("Applications/Chess.app/Contents/Resources/board.png", "global board\n")
        tree.text("Applications/Chess.app/Contents/Resources/en.lproj/board.png", "English board (the global one wins)\n")
        tree.text("Applications/Chess.app/Contents/Resources/de.lproj/Rules.html", "<p>Schachregeln</p>\n")
        tree.text("Applications/Chess.app/Contents/Resources/en.lproj/Rules.html", "<p>Chess rules</p>\n")
        tree.text("Applications/Chess.app/Contents/Resources/en_GB.lproj/Rules.html", "<p>Chess rules, British</p>\n")
        tree.text("Applications/Chess.app/Contents/Resources/Base.lproj/MainMenu.nib", "base nib\n")
        tree.text("Applications/Chess.app/Contents/Resources/de.lproj/Sounds/check.aiff", "Schach!\n")
        tree.text("Applications/Chess.app/Contents/Resources/en.lproj/Sounds/check.aiff", "Check!\n")
        tree.plist("Applications/Chess.app/Contents/PlugIns/Openings.plugin/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.Chess.Openings"), "CFBundlePackageType": .string("BNDL"),
        ]))

        // BUNDLES.md 7: the same bundle renamed Web.app keeps its stem; Chess.mov.app keeps its whole name.
        tree.macApp("Applications/Web.app", identifier: "org.example.Chess.renamed", info: [
            "CFBundleDisplayName": .string("Chess"), "CFBundleExecutable": .string("Chess"),
        ], localizedStrings: ["de": ["CFBundleDisplayName": "Schach"]])
        tree.macApp("Applications/Chess.mov.app", identifier: "org.example.ChessMovie", info: ["CFBundleName": .string("Chess.mov")])

        // Two versions of one identifier; the old one built for Intel only, which the Apple silicon
        // report (Docs/web.md) lists and `query --runs-on macos:15.0/arm64` leaves out.
        tree.macApp("Applications/Old Versions/Chess 1.0.app", identifier: "org.example.Chess", info: [
            "CFBundleName": .string("Chess"), "CFBundleVersion": .string("1.0"), "CFBundleShortVersionString": .string("1.0"),
            "CFBundleExecutable": .string("Chess"),
        ])
        tree.file("Applications/Old Versions/Chess 1.0.app/Contents/MacOS/Chess", MachOImage.x86_64(uuid: chessIntelOnlyUUID).bytes(), mode: 0o755)

        // A GNUstep application as Debian ships it: OpenStep Info-gnustep.plist, legacy lproj names, Latin-1 strings.
        tree.gnustepApp("Applications/Terminal.app", info: [
            "CFBundleIdentifier": .string("org.example.Terminal"), "NSExecutable": .string("Terminal"),
            "ApplicationName": .string("Terminal"), "ApplicationRelease": .string("0.9.9"), "CFBundleVersion": .string("0.9.9"),
            "CFBundleDevelopmentRegion": .string("English"), "NSIcon": .string("Terminal.tiff"),
        ], lprojs: ["English", "German", "French"])
        tree.file("Applications/Terminal.app/Resources/Terminal.tiff", IconFixtures.tiff([
            IconFixtures.disc(side: 24, red: 0x20, green: 0x20, blue: 0x20), IconFixtures.disc(side: 48, red: 0x20, green: 0x20, blue: 0x20),
        ]))
        tree.strings("Applications/Terminal.app/Resources/German.lproj/Localizable.strings", ["Close": "Schließen", "Quit": "Beenden"], as: .latin1)
        tree.strings("Applications/Terminal.app/Resources/German.lproj/InfoPlist.strings", ["CFBundleName": "Terminal"], as: .utf16LittleEndianNoBOM)

        // An editor that claims `pkgdoc` directories as documents (LSTypeIsPackage), and `sketch`
        // through an exported type that conforms to com.apple.package.
        tree.macApp("Applications/Editor.app", identifier: "org.example.Editor", info: [
            "CFBundleName": .string("Editor"),
            "CFBundleDocumentTypes": .array([
                .dictionary(["CFBundleTypeName": .string("Package Document"), "CFBundleTypeExtensions": .array([.string("pkgdoc")]),
                             "LSTypeIsPackage": .bool(true), "CFBundleTypeRole": .string("Editor"),
                             "CFBundleTypeIconFile": .string("PackageDocument")]),
                .dictionary(["CFBundleTypeName": .string("Sketch"), "LSItemContentTypes": .array([.string("org.example.sketch")])]),
            ]),
            "UTExportedTypeDeclarations": .array([.dictionary([
                "UTTypeIdentifier": .string("org.example.sketch"), "UTTypeConformsTo": .array([.string("com.apple.package")]),
                "UTTypeTagSpecification": .dictionary(["public.filename-extension": .array([.string("sketch")])]),
            ])]),
        ], localizedStrings: ["de": ["CFBundleDisplayName": "Editor (de)"]], stringsEncoding: .macRoman)
        tree.file("Applications/Editor.app/Contents/Resources/PackageDocument.icns",
                  IconFixtures.packedIcns(IconFixtures.disc(side: 128, red: 0x1E, green: 0x90, blue: 0xFF)))
        tree.plist("Applications/Editor.app/Contents/PlugIns/Share.appex/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.Editor.Share"), "CFBundlePackageType": .string("XPC!"),
        ]), format: .binary)
        tree.plist("Applications/Editor.app/Contents/XPCServices/Render.xpc/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.Editor.Render"),
        ]))
        tree.macFramework("Applications/Editor.app/Contents/Frameworks/EditorKit.framework", identifier: "org.example.EditorKit")
    }

    static func documents(_ tree: TreeWriter) {
        tree.text("Documents/Plan.pkgdoc/contents.xml", "<plan/>\n")
        tree.text("Documents/Drawing.sketch/layers.json", "[]\n")
        tree.text("Documents/Notes.rtfd/TXT.rtf", "{\\rtf1 Notes}\n")
        // A folder the Finder shows as one item: the package bit in an AppleDouble sidecar.
        tree.text("Documents/Album/photo1.txt", "photo\n")
        tree.file("Documents/._Album", FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20)))
        // BUNDLES.md 7: Reports.localized shows as Berichte in German.
        tree.text("Documents/Reports.localized/2026.txt", "report\n")
        tree.strings("Documents/Reports.localized/.localized/de.strings", ["Reports": "Berichte"], as: .utf16LittleEndianWithBOM)
        tree.strings("Documents/Reports.localized/.localized/fr.strings", ["Reports": "Rapports"])
        tree.text("Documents/Plain Folder/readme.txt", "just a folder\n")
    }

    static func library(_ tree: TreeWriter) {
        // BUNDLES.md 7: a framework is a bundle, not a package; its Versions/Current link is not followed.
        tree.macFramework("Library/Frameworks/Kit.framework", identifier: "org.example.Kit")
        tree.strings("Library/Frameworks/Kit.framework/Versions/A/Resources/de.lproj/InfoPlist.strings", ["CFBundleName": "Bausatz"])
        tree.plist("Library/Bundles/Legacy.bundle/Support Files/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.Legacy"), "CFBundlePackageType": .string("BNDL"),
        ]))
        tree.plist("Library/Mobile/Pocket.app/Info.plist", .dictionary([
            "CFBundleIdentifier": .string("org.example.Pocket"), "CFBundleExecutable": .string("Pocket"),
            "CFBundleIcons": .dictionary(["CFBundlePrimaryIcon": .dictionary(["CFBundleIconFiles": .array([.string("AppIcon60x60")])])]),
        ]), format: .binary)
        // BUNDLES.md 8: the largest of an iOS icon's variants.
        for (suffix, side) in [("", 60), ("@2x", 120), ("@3x", 180)] {
            tree.file("Library/Mobile/Pocket.app/AppIcon60x60\(suffix).png", IconFixtures.png(IconFixtures.disc(side: side, red: 0x33, green: 0xAA, blue: 0x55)))
        }
        tree.text("Library/Mobile/Pocket.app/Pocket", "#!/bin/sh\n", mode: 0o755)
    }

    static func oddities(_ tree: TreeWriter) {
        // Broken and hostile bundles: each is catalogued with its errors.
        tree.text("Oddities/Broken.app/Contents/Info.plist", "<plist><dict><key>CFBundleIdentifier</key><string>unterminated")
        tree.macApp("Oddities/Unexpanded.app", identifier: "$(PRODUCT_BUNDLE_IDENTIFIER)")
        tree.macApp("Oddities/Hostile.app", identifier: "org.example.Hostile", info: [
            "CFBundleDisplayName": .string("Hostile"),
        ], localizedStrings: ["de": ["CFBundleDisplayName": "../../etc/passwd"]])
        tree.text("Oddities/Half.app/Contents/Resources/de.lproj/InfoPlist.strings", "CFBundleDisplayName = \"Halb;\n")
        tree.plist("Oddities/Half.app/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("org.example.Half")]))
        tree.symlink("Oddities/Escape.app/Contents/Info.plist", to: "../../../../../etc/hostname")
        tree.text("Oddities/Empty.app/README.txt", "An .app with no bundle structure: a folder named like a bundle, shown as a package, without an error.\n")
    }
}
