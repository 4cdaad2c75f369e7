#if canImport(Glibc)
import Glibc
#endif
import BundleModel
import Fixtures
import SystemCalls
import Testing
import TestSupport

/// Inspects one directory of a real tree, as the scanner would.
func inspect(_ relative: String, in tree: TreeWriter, claimed: Set<String> = []) throws -> BundleRecord? {
    let root = try ScanRoot(path: tree.root)
    let directory = try DirectoryContext.open(tree.path(relative), in: root)
    return BundleInspector(root: root, settings: InspectionSettings(claimed: ClaimedTypes(extensions: claimed))).inspect(directory)
}

@Suite struct InspectorTests {
    let temporary = TemporaryDirectory("inspect")
    var tree: TreeWriter { TreeWriter(root: temporary.path) }

    @Test func macApplication() throws {
        tree.macApp("Chess.app", identifier: "com.example.chess",
                    info: ["CFBundleDisplayName": .string("Chess"), "CFBundleVersion": .string("2.1.0b7"),
                           "CFBundleShortVersionString": .string("2.1"), "CFBundleDevelopmentRegion": .string("en")],
                    localizedStrings: ["de": ["CFBundleDisplayName": "Schach"], "en": ["CFBundleDisplayName": "Chess"]])
        let record = try #require(try inspect("Chess.app", in: tree))
        #expect(record.isBundle && record.isPackage)
        #expect(record.packageReasons == .extension)
        #expect(record.layout == .contents)
        #expect(record.kind == "application")
        #expect(record.identifier == "com.example.chess")
        #expect(record.infoFile == "Contents/Info.plist")
        #expect(record.infoFormat == .xml)
        #expect(record.localizations == ["de", "en"])
        #expect(record.executable == tree.path("Chess.app/Contents/MacOS/Chess"))
        #expect(record.numericVersion == 0x0210_6007)
        #expect(record.errors.isEmpty, "\(record.errors)")
        #expect(record.displayName(for: [LanguageTag("de")!]) == "Schach")
        #expect(record.displayName(for: [LanguageTag("en")!]) == "Chess")
        #expect(record.stamps.map(\.path).contains("Contents/Info.plist"))
        #expect(record.stamps.map(\.path).contains("Contents/Resources/de.lproj/InfoPlist.strings"))
    }

    // BUNDLES.md section 7: X.framework is a bundle, not a package.
    @Test func frameworkIsABundleNotAPackage() throws {
        tree.macFramework("X.framework", identifier: "com.example.X")
        let record = try #require(try inspect("X.framework", in: tree))
        #expect(record.isBundle)
        #expect(!record.isPackage)
        #expect(record.kind == "framework")
        #expect(record.layout == .resources)
        #expect(record.identifier == "com.example.X")
        #expect(record.executable == tree.path("X.framework/X"))
    }

    // BUNDLES.md section 7: Foo.appex, Foo.xpc, Foo.plugin are packages.
    @Test(arguments: ["appex", "xpc", "plugin", "bundle", "kext", "prefpane", "qlgenerator", "mdimporter", "saver", "APP", "Plugin"])
    func packageExtensions(ext: String) throws {
        tree.plist("Foo.\(ext)/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.foo")]))
        let record = try #require(try inspect("Foo.\(ext)", in: tree))
        #expect(record.isPackage)
        #expect(record.packageReasons == .extension)
        #expect(record.isBundle)
    }

    @Test func documentPackageByExtension() throws {
        tree.text("Notes.rtfd/TXT.rtf", "{\\rtf1}")
        let record = try #require(try inspect("Notes.rtfd", in: tree))
        #expect(record.isPackage && !record.isBundle)
        #expect(record.kind == "document")
        #expect(record.errors.isEmpty)
    }

    @Test func plainFoldersAreNeither() throws {
        tree.text("Folder/readme.txt", "hi")
        tree.text("Project/Resources/icon.png", "png") // a Resources folder alone does not make a bundle
        #expect(try inspect("Folder", in: tree) == nil)
        #expect(try inspect("Project", in: tree) == nil)
    }

    @Test func unknownExtensionWithAnInfoFileIsABundle() throws {
        tree.plist("Thing.widget/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.w"), "CFBundlePackageType": .string("WDGT")]))
        let record = try #require(try inspect("Thing.widget", in: tree))
        #expect(record.isBundle && !record.isPackage)
        #expect(record.kind == "WDGT") // rule 9: other package types are kept as they are
    }

    // BUNDLES.md section 7: a folder whose user.com.apple.FinderInfo has fi[8] = 0x20 is a package.
    @Test func finderBitInUserAttribute() throws {
        tree.directory("Folder")
        tree.setAttribute("Folder", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x20))
        let record = try #require(try inspect("Folder", in: tree))
        #expect(record.packageReasons == .finderBit)
        #expect(record.finderInfoSource == .userAttribute)
        #expect(!record.isBundle)
        #expect(record.kind == "document")
    }

    @Test(arguments: [50, 82, 86, 122])
    func finderBitInNetatalkMetadataAtAnyOffset(offset: Int) throws {
        tree.directory("Folder")
        tree.setAttribute("Folder", name: "user.org.netatalk.Metadata",
                          value: FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20), finderInfoOffset: offset))
        let record = try #require(try inspect("Folder", in: tree))
        #expect(record.packageReasons == .finderBit)
        #expect(record.finderInfoSource == .netatalkMetadata)
    }

    @Test(arguments: ["user.DosStream.AFP_AfpInfo:$DATA", "user.AFP_AfpInfo"], [true, false])
    func finderBitInSambaAfpInfo(name: String, trailingByte: Bool) throws {
        tree.directory("Folder")
        tree.setAttribute("Folder", name: name, value: FinderInfoBlobs.afpInfo(FinderInfoBlobs.record(flags8: 0x20), trailingByte: trailingByte))
        let record = try #require(try inspect("Folder", in: tree))
        #expect(record.packageReasons == .finderBit)
    }

    @Test func finderBitInAppleDoubleSidecar() throws {
        tree.directory("Folder")
        tree.file("._Folder", FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20), finderInfoOffset: 50))
        let record = try #require(try inspect("Folder", in: tree))
        #expect(record.packageReasons == .finderBit)
        #expect(record.finderInfoSource == .appleDoubleSidecar)
    }

    @Test func firstPlaceWinsOverLaterOnes() throws {
        tree.directory("Folder")
        // The user attribute says "not a package"; the sidecar's package bit is not looked at.
        tree.setAttribute("Folder", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x00))
        tree.file("._Folder", FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20)))
        #expect(try inspect("Folder", in: tree) == nil)
    }

    @Test func malformedBlobsCarryNoFlags() throws {
        tree.directory("Short")
        tree.setAttribute("Short", name: "user.com.apple.FinderInfo", value: [0, 0, 0, 0, 0, 0, 0, 0, 0x20])
        tree.directory("BadMagic")
        var bad = FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20))
        bad[1] = 0x99
        tree.setAttribute("BadMagic", name: "user.org.netatalk.Metadata", value: bad)
        tree.directory("Truncated")
        tree.file("._Truncated", Array(FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20)).prefix(90)))
        tree.directory("NoEntry")
        tree.file("._NoEntry", Array(FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0x20))[0..<26]) + [0, 0])
        for name in ["Short", "BadMagic", "Truncated", "NoEntry"] {
            #expect(try inspect(name, in: tree) == nil, "\(name)")
        }
    }

    @Test func hfsPlusAttributeDecodes() {
        // Linux's hfsplus driver exposes osx.com.apple.FinderInfo; ext4 cannot carry that namespace,
        // so the decoding is checked on the bytes.
        let info = FinderInfo.decode(attribute: FinderInfoBlobs.record(flags8: 0x60, flags9: 0x10), source: .hfsPlusAttribute)
        #expect(info?.hasBundleBit == true)
        #expect(info?.isInvisible == true)
        #expect(info?.hasHiddenExtension == true)
        #expect(FinderInfo.decode(attribute: [0x20], source: .hfsPlusAttribute) == nil)
    }

    // BUNDLES.md section 7: Doc.pkgdoc while an app claims pkgdoc → package; without the claim → a folder.
    @Test func claimedExtensionMakesAPackage() throws {
        tree.text("Doc.pkgdoc/contents.xml", "<doc/>")
        let claimed = try #require(try inspect("Doc.pkgdoc", in: tree, claimed: ["pkgdoc"]))
        #expect(claimed.packageReasons == .claimed)
        #expect(claimed.kind == "document")
        #expect(try inspect("Doc.pkgdoc", in: tree) == nil)
    }

    @Test func everyReasonIsRecorded() throws {
        tree.plist("Both.app/Contents/Info.plist", .dictionary([:]))
        tree.setAttribute("Both.app", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x20))
        let record = try #require(try inspect("Both.app", in: tree, claimed: ["app"]))
        #expect(record.packageReasons.names == ["extension", "claimed", "finder-bit"])
    }

    // BUNDLES.md section 7: GNUstep Terminal.app/Resources/Info-gnustep.plist in OpenStep text.
    @Test func gnustepApplication() throws {
        tree.gnustepApp("Terminal.app", info: [
            "CFBundleIdentifier": .string("org.gap.Terminal"), "NSExecutable": .string("Terminal"),
            "ApplicationName": .string("Terminal"),
        ], lprojs: ["English", "German", "French"])
        // A stale Info.plist beside it loses to Info-gnustep.plist.
        tree.plist("Terminal.app/Resources/Info.plist", .dictionary(["CFBundleIdentifier": .string("wrong")]))
        let record = try #require(try inspect("Terminal.app", in: tree))
        #expect(record.layout == .resources)
        #expect(record.infoFile == "Resources/Info-gnustep.plist")
        #expect(record.infoFormat == .openStep)
        #expect(record.identifier == "org.gap.Terminal")
        #expect(record.executable == tree.path("Terminal.app/Terminal"))
        #expect(record.localizations == ["English", "French", "German"])
        #expect(record.kind == "application")
        #expect(record.errors.isEmpty, "\(record.errors)")
    }

    @Test func flatIOSBundleAndCaseInsensitiveInfoName() throws {
        tree.plist("Mobile.app/info.plist", .dictionary(["CFBundleIdentifier": .string("com.example.mobile"), "CFBundleExecutable": .string("Mobile")]), format: .binary)
        tree.text("Mobile.app/Mobile", "bin", mode: 0o755)
        tree.strings("Mobile.app/fr.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Mobile FR"])
        let record = try #require(try inspect("Mobile.app", in: tree))
        #expect(record.layout == .flat)
        #expect(record.infoFile == "info.plist")
        #expect(record.warnings.contains { $0.contains("not spelled Info.plist") })
        #expect(record.infoFormat == .binary)
        #expect(record.localizations == ["fr"])
        #expect(record.executable == tree.path("Mobile.app/Mobile"))
    }

    @Test func layoutPrecedence() throws {
        // Contents/ before Resources/: both present, Contents wins.
        tree.plist("Mixed.app/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("contents")]))
        tree.plist("Mixed.app/Resources/Info-gnustep.plist", .dictionary(["CFBundleIdentifier": .string("resources")]))
        #expect(try inspect("Mixed.app", in: tree)?.identifier == "contents")
        // For a framework, Resources/ is looked at first.
        tree.plist("Mixed.framework/Contents/Info.plist", .dictionary(["CFBundleIdentifier": .string("contents")]))
        tree.plist("Mixed.framework/Resources/Info.plist", .dictionary(["CFBundleIdentifier": .string("resources")]))
        #expect(try inspect("Mixed.framework", in: tree)?.identifier == "resources")
        // Support Files/ is the last structured layout.
        tree.plist("Old.bundle/Support Files/Info.plist", .dictionary(["CFBundleIdentifier": .string("support")]))
        let old = try #require(try inspect("Old.bundle", in: tree))
        #expect(old.layout == .supportFiles)
        #expect(old.identifier == "support")
    }

    @Test func gnustepVersionedFrameworkWithoutTopLevelResources() throws {
        // Debian's layout: only Versions/<v>/Resources holds the Info file.
        tree.plist("Pantomime.framework/Versions/1.3/Resources/Info-gnustep.plist",
                   .dictionary(["NSExecutable": .string("Pantomime")]), format: .openStep)
        tree.text("Pantomime.framework/Versions/1.3/libPantomime.so.1.3.0", "elf")
        tree.symlink("Pantomime.framework/Versions/1.3/Pantomime", to: "libPantomime.so.1.3.0")
        tree.symlink("Pantomime.framework/Versions/Current", to: "1.3")
        tree.symlink("Pantomime.framework/Pantomime", to: "Versions/Current/Pantomime")
        tree.strings("Pantomime.framework/Versions/1.3/Resources/German.lproj/InfoPlist.strings", ["CFBundleName": "Pantomime"])
        let record = try #require(try inspect("Pantomime.framework", in: tree))
        #expect(record.layout == .versionedFramework)
        #expect(record.infoFile == "Versions/1.3/Resources/Info-gnustep.plist")
        #expect(record.resourcesDirectory == "Versions/1.3/Resources")
        #expect(record.localizations == ["German"])
        #expect(record.executable == tree.path("Pantomime.framework/Versions/1.3/Pantomime"))
        #expect(record.warnings.isEmpty, "\(record.warnings)")
        #expect(!record.isPackage)
    }

    @Test func versionsCurrentAsAPlainFileIsFollowedWithAWarning() throws {
        tree.plist("Lost.framework/Versions/B/Resources/Info.plist", .dictionary(["CFBundleIdentifier": .string("b")]))
        tree.plist("Lost.framework/Versions/A/Resources/Info.plist", .dictionary(["CFBundleIdentifier": .string("a")]))
        tree.text("Lost.framework/Versions/Current", "A")
        let record = try #require(try inspect("Lost.framework", in: tree))
        #expect(record.identifier == "a")
        #expect(record.warnings.contains { $0.contains("plain file") })
    }

    @Test func invalidAndMissingValuesAreKeptAndFlagged() throws {
        tree.macApp("Weird.app", info: [
            "CFBundleIdentifier": .string("$(PRODUCT_BUNDLE_IDENTIFIER)"), "CFBundleName": .string(""),
            "CFBundleVersion": .integer(3),
        ])
        let record = try #require(try inspect("Weird.app", in: tree))
        #expect(record.identifier == "$(PRODUCT_BUNDLE_IDENTIFIER)")
        #expect(record.errors.contains { $0.contains("unexpanded build variable") })
        #expect(record.warnings.contains { $0.contains("CFBundleVersion is a integer") || $0.contains("CFBundleVersion is a") })
        #expect(record.version == nil)
        tree.macApp("Spaces.app", identifier: "com.example.with space")
        #expect(try inspect("Spaces.app", in: tree)?.errors.first?.contains("characters other than") == true)
    }

    @Test func brokenInfoFilesAreRecordedAndTheBundleKept() throws {
        tree.text("Broken.app/Contents/Info.plist", "<plist><dict><key>CFBundleIdentifier</key>")
        tree.plist("Array.app/Contents/Info.plist", .array([.string("not a dictionary")]))
        tree.directory("Empty.app")
        let broken = try #require(try inspect("Broken.app", in: tree))
        #expect(broken.isBundle && broken.errors.first?.hasPrefix("Contents/Info.plist: line") == true)
        let array = try #require(try inspect("Array.app", in: tree))
        #expect(array.errors == ["Contents/Info.plist: the root is a array, not a dictionary"] || array.errors.first?.contains("not a dictionary") == true)
        // A folder that only carries the extension is no broken bundle: a folder so named, which a
        // Mac still shows as one item.
        let empty = try #require(try inspect("Empty.app", in: tree))
        #expect(!empty.isBundle && empty.isPackage)
        #expect(empty.kind == "folder" && empty.errors == [])
        // A Mac bundle whose Contents/ lacks its Info.plist is a broken bundle, and says so.
        tree.directory("NoInfo.app/Contents/MacOS")
        let noInfo = try #require(try inspect("NoInfo.app", in: tree))
        #expect(noInfo.isBundle && noInfo.kind == "application" && noInfo.errors.first?.contains("no Info.plist") == true, "\(noInfo.errors)")
    }

    /// Debian's folders named like bundles (issue 38): documentation folders of packages whose
    /// names end in `.app`, library folders under /usr/lib, header-only frameworks. None is a
    /// bundle, none has an error.
    @Test func foldersNamedLikeBundlesAreFoldersWithoutErrors() throws {
        tree.text("usr/share/doc/libfoo.app/copyright", "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
        tree.text("usr/share/doc/libfoo.app/changelog.Debian.gz", "")
        tree.text("usr/lib/x86_64-linux-gnu/nagios.app/lib/plugin.so", "")
        tree.text("usr/include/Header.framework/Versions/A/Headers/header.h", "int f(void);\n")
        tree.symlink("usr/include/Header.framework/Versions/Current", to: "A")
        tree.symlink("usr/include/Header.framework/Headers", to: "Versions/Current/Headers")
        for path in ["usr/share/doc/libfoo.app", "usr/lib/x86_64-linux-gnu/nagios.app", "usr/include/Header.framework"] {
            let record = try #require(try inspect(path, in: tree), "\(path)")
            #expect(record.kind == "folder" && !record.isBundle && record.errors == [], "\(path): \(record.errors)")
            #expect(record.isPackage == !path.hasSuffix(".framework"), "\(path)")
        }
    }

    @Test func brokenInfoPlistStringsIsAnErrorAndTheRestStays() throws {
        tree.macApp("Half.app", identifier: "com.example.half", info: ["CFBundleDisplayName": .string("Half")])
        tree.text("Half.app/Contents/Resources/de.lproj/InfoPlist.strings", "CFBundleDisplayName = \"Halb;\n")
        tree.strings("Half.app/Contents/Resources/fr.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Moitié"])
        let record = try #require(try inspect("Half.app", in: tree))
        #expect(record.identifier == "com.example.half")
        #expect(record.errors.count == 1)
        #expect(record.errors.first?.hasPrefix("Contents/Resources/de.lproj/InfoPlist.strings: line 1") == true)
        // The broken file exists, so it is the one rule 12 picks for de: the Info.plist value shows.
        #expect(record.displayName(for: [LanguageTag("de")!]) == "Half")
        #expect(record.displayName(for: [LanguageTag("fr")!]) == "Moitié")
    }

    /// Docs/decisions.md "Encodings": a well-formed Latin-1 strings file is read whole with a
    /// warning; a repaired one (a missing `;`) stays an error.
    @Test func latin1StringsAreAWarningAndARepairAnError() throws {
        tree.macApp("Old.app", identifier: "com.example.old", info: ["CFBundleDisplayName": .string("Old")])
        tree.file("Old.app/Contents/Resources/de.lproj/InfoPlist.strings", Array("CFBundleDisplayName = \"Alt M".utf8) + [0xFC] + Array("hle\";\n".utf8))
        tree.text("Old.app/Contents/Resources/fr.lproj/InfoPlist.strings", "CFBundleDisplayName = \"Vieux\"\n")
        let record = try #require(try inspect("Old.app", in: tree))
        #expect(record.displayName(for: [LanguageTag("de")!]) == "Alt Mühle")
        #expect(record.warnings.contains { $0.hasPrefix("Contents/Resources/de.lproj/InfoPlist.strings") && $0.contains("Windows-1252") }, "\(record.warnings)")
        #expect(record.errors.count == 1, "\(record.errors)")
        #expect(record.errors.first?.hasPrefix("Contents/Resources/fr.lproj/InfoPlist.strings") == true)
        #expect(record.displayName(for: [LanguageTag("fr")!]) == "Vieux")
    }

    /// Rule 7: a text plist that is a bare word is a string root: an error for an Info file, never
    /// the dictionary `{hello = hello}`.
    @Test func bareWordInfoFilesAreStringRoots() throws {
        for (name, text) in [("Word", "hello"), ("Quoted", "\"hello\""), ("Truncated", "bplist0-------------------------------------")] {
            tree.text("\(name).app/Contents/Info.plist", text)
            let record = try #require(try inspect("\(name).app", in: tree))
            #expect(record.info.isEmpty, "\(name): \(record.info)")
            #expect(record.errors.count == 1, "\(name): \(record.errors)")
            if name != "Truncated" { #expect(record.errors == ["Contents/Info.plist: the root is a string, not a dictionary"], "\(name)") }
        }
    }

    @Test func hugeInfoFileIsRefusedWithoutReadingIt() throws {
        tree.directory("Huge.app/Contents")
        let path = tree.path("Huge.app/Contents/Info.plist")
        let fd = try Descriptor.open(path, flags: O_WRONLY_CREATE)
        #expect(ftruncate(fd.rawValue, 64 << 20) == 0)
        let start = threadSeconds()
        let record = try #require(try inspect("Huge.app", in: tree))
        #expect(threadSeconds() - start < 1)
        #expect(record.errors.first?.contains("more than the 8 MiB limit") == true)
    }

    @Test func fifosDevicesAndEscapingLinksAreNeverOpened() throws {
        tree.directory("Fifo.app/Contents")
        tree.fifo("Fifo.app/Contents/Info.plist")
        tree.directory("Zero.app/Contents")
        tree.symlink("Zero.app/Contents/Info.plist", to: "/dev/zero")
        tree.directory("Escape.app/Contents")
        tree.symlink("Escape.app/Contents/Info.plist", to: "../../../../../../../../etc/passwd")
        tree.directory("Loop.app/Contents")
        tree.symlink("Loop.app/Contents/Info.plist", to: "Info.plist")
        let fifo = try #require(try inspect("Fifo.app", in: tree))
        #expect(fifo.errors.first?.contains("FIFO") == true, "\(fifo.errors)")
        for name in ["Zero.app", "Escape.app", "Loop.app"] {
            let record = try #require(try inspect(name, in: tree))
            #expect(record.info.isEmpty, "\(name)")
            #expect(!record.errors.isEmpty, "\(name)")
        }
    }

    /// Rule 8: an unexpanded build variable or an empty CFBundleExecutable falls back to
    /// NSExecutable, as GNUstep does (four of Debian's adun bundles ship `${EXECUTABLE_NAME}`).
    @Test func anUnexpandedOrEmptyExecutableFallsBackToNSExecutable() throws {
        for (name, declared) in [("Variable.app", "${EXECUTABLE_NAME}"), ("Parenthesized.app", "$(EXECUTABLE_NAME)"), ("Empty.app", "")] {
            tree.gnustepApp(name, info: ["CFBundleIdentifier": .string("org.example.adun"), "CFBundleExecutable": .string(declared),
                                         "NSExecutable": .string("Adun")])
            tree.text("\(name)/Adun", "#!/bin/sh\n", mode: 0o755)
            let record = try #require(try inspect(name, in: tree))
            #expect(record.executable == tree.path("\(name)/Adun"), "\(name)")
            #expect(record.errors.isEmpty, "\(name): \(record.errors)")
        }
        // Without NSExecutable, the unexpanded name is what was declared, and it is not there.
        tree.plist("Alone.app/Contents/Info.plist", .dictionary(["CFBundleExecutable": .string("${EXECUTABLE_NAME}")]))
        let alone = try #require(try inspect("Alone.app", in: tree))
        #expect(alone.executable == nil)
        #expect(alone.errors.contains { $0.contains("${EXECUTABLE_NAME}") }, "\(alone.errors)")
    }

    @Test func missingExecutableIsAnError() throws {
        tree.plist("NoExe.app/Contents/Info.plist", .dictionary(["CFBundleExecutable": .string("NoExe")]))
        let record = try #require(try inspect("NoExe.app", in: tree))
        #expect(record.executable == nil)
        #expect(record.errors.first?.contains("executable \"NoExe\"") == true)
    }

    @Test func documentTypesAndDeclarationsAreRead() throws {
        tree.macApp("Editor.app", identifier: "com.example.editor", info: [
            "CFBundleDocumentTypes": .array([
                .dictionary(["CFBundleTypeExtensions": .array([.string("pkgdoc"), .string("*")]), "LSTypeIsPackage": .string("YES")]),
                .dictionary(["LSItemContentTypes": .array([.string("com.example.bundle-doc")])]),
            ]),
            "UTExportedTypeDeclarations": .array([
                .dictionary([
                    "UTTypeIdentifier": .string("com.example.bundle-doc"),
                    "UTTypeConformsTo": .array([.string("com.apple.package")]),
                    "UTTypeTagSpecification": .dictionary(["public.filename-extension": .string("BDoc")]),
                ]),
            ]),
        ])
        let record = try #require(try inspect("Editor.app", in: tree))
        #expect(record.documentTypes.first?.extensions == ["pkgdoc"])
        #expect(record.documentTypes.first?.isPackage == true)
        #expect(record.typeDeclarations.first?.extensions == ["bdoc"])
        let claims = ClaimResolver.claims(of: [.init(path: record.key, documentTypes: record.documentTypes, typeDeclarations: record.typeDeclarations)])
        #expect(claims.map(\.ext) == ["bdoc", "pkgdoc"])
    }
}

let O_WRONLY_CREATE = O_WRONLY | O_CREAT

@Suite struct WorkedExamplesFromDisk {
    let temporary = TemporaryDirectory("examples")
    var tree: TreeWriter { TreeWriter(root: temporary.path) }

    // BUNDLES.md section 7: CFBundleDevelopmentRegion English, only en.lproj/InfoPlist.strings, languages ja.
    @Test func developmentRegionStringsApply() throws {
        tree.macApp("Tool.app", identifier: "com.example.tool", info: [
            "CFBundleDevelopmentRegion": .string("English"), "CFBundleDisplayName": .string("Tool"),
            "NSHumanReadableCopyright": .string("Info.plist copyright"),
        ], localizedStrings: ["en": ["CFBundleDisplayName": "Tool Deluxe", "NSHumanReadableCopyright": "English copyright"]])
        let record = try #require(try inspect("Tool.app", in: tree))
        let japanese = [LanguageTag("ja")!]
        #expect(record.localizedString("NSHumanReadableCopyright", for: japanese) == "English copyright")
        #expect(record.displayName(for: japanese) == "Tool Deluxe")
    }

    // BUNDLES.md section 7: Reports.localized/.localized/de.strings says Berichte; languages de / ja.
    @Test func localizedFolderFromDisk() throws {
        tree.text("Reports.localized/2026.txt", "x")
        tree.strings("Reports.localized/.localized/de.strings", ["Reports": "Berichte"], as: .utf16LittleEndianWithBOM)
        tree.strings("Reports.localized/.localized/fr.strings", ["Reports": "Rapports"], as: .binaryPlist)
        tree.text("Reports.localized/.localized/it.strings", "\"Reports\" = \"broken;")
        let root = try ScanRoot(path: tree.root)
        #expect(LocalizedFolder.displayName(relativePath: "Reports.localized", in: root, languages: [LanguageTag("de")!]) == "Berichte")
        #expect(LocalizedFolder.displayName(relativePath: "Reports.localized", in: root, languages: [LanguageTag("ja")!]) == "Reports")
        #expect(LocalizedFolder.displayName(relativePath: "Reports.localized", in: root, languages: [LanguageTag("fr-CA")!]) == "Rapports")
        #expect(LocalizedFolder.displayName(relativePath: "Reports.localized", in: root, languages: [LanguageTag("it")!]) == "Reports")
        #expect(LocalizedFolder.displayName(relativePath: "Plain", in: root, languages: [LanguageTag("de")!]) == "Plain")
    }
}
