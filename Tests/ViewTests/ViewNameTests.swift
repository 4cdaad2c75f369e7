import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// SPEC.md "The view": display names for the mount's languages, hidden items not listed,
    /// hostile names made safe, real names still resolving.
    @Suite struct Names {
        let fixture = ViewFixture()

        @Test func namesFollowTheMountsLanguages() throws {
            let german = try fixture.mount(languages: "de")
            #expect(try listing(german.path("Applications")) == ["Old", "Schach"])
            #expect(try listing(german.path("Documents")).contains("Berichte"))
            let english = try fixture.mount(languages: "en")
            #expect(try listing(english.path("Applications")) == ["Chess", "Old"])
            #expect(try listing(english.path("Documents")).contains("Reports"))
            // `ls` shows the same, and the package as a regular file.
            let ls = try Subprocess.run("/bin/ls", ["-l", german.path("Applications")])
            #expect(ls.standardOutput.contains(" Schach\n"), "\(ls)")
            #expect(ls.standardOutput.split(separator: "\n").first { $0.hasSuffix(" Schach") }?.hasPrefix("-r") == true, "\(ls)")
            let status = try FileStatus.of(german.path("Applications/Schach"))
            #expect(status.type == .regular)
            // A framework is not a package: a folder, browsable under its real name.
            #expect(try FileStatus.of(german.path("Library/Frameworks/Kit.framework")).type == .directory)
        }

        // Rule 1, `system-type`: every row of the table is one item, the negative controls folders.
        @Test func systemPackageTypesAreFiles() throws {
            let table = SystemPackageTypes.standard
            let extensions = table.packageExtensions.sorted()
            for ext in extensions { fixture.tree.text("Developer/Item.\(ext)/inside.txt", ext + "\n") }
            for ext in ["xcassets", "lproj", "framework"] { fixture.tree.text("Developer/Folder.\(ext)/inside.txt", ext + "\n") }
            let view = try fixture.mount(languages: "en")
            for ext in extensions {
                #expect(try FileStatus.of(view.path("Developer/Item.\(ext)")).type == .regular, "\(ext)")
            }
            for ext in ["xcassets", "lproj", "framework"] {
                #expect(try contents(view.path("Developer/Folder.\(ext)/inside.txt")) == Array("\(ext)\n".utf8))
            }
        }

        @Test func hiddenItemsAreNotListedButResolve() throws {
            let view = try fixture.mount(languages: "en")
            let documents = try listing(view.path("Documents"))
            #expect(documents == ["Reports", "hidden-extension", "notes.txt"], "\(documents)")
            #expect(try listing(view.mountPoint) == ["Applications", "Documents", "Library", "Oddities", "README.txt", "chess-binary"])
            for hidden in [".hidden", ".DS_Store", "._notes.txt", "invisible.txt", "hidden-extension.txt", "Reports.localized"] {
                #expect(throws: Never.self, "\(hidden) resolves by its real name") { try FileStatus.of(view.path("Documents/" + hidden)) }
            }
            #expect(try contents(view.path("Documents/invisible.txt")) == Array("not listed\n".utf8))
            #expect(try contents(view.path("Documents/hidden-extension")) == Array("listed without .txt\n".utf8))
        }

        @Test func hostileDisplayNamesAreSafe() throws {
            let view = try fixture.mount(languages: "en")
            let names = try listing(view.path("Oddities"))
            #expect(names.count == ViewFixture.hostileNames.count, "\(names)")
            #expect(Set(names).count == names.count)
            for name in names {
                #expect(!name.contains("/") && !name.contains("\0") && name != "." && name != "..", "\(name)")
                #expect(name.utf8.count <= 255)
                #expect(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(name.debugDescription)")
                let status = try FileStatus.of(view.path("Oddities/" + name))
                #expect(status.type == .regular)
            }
            #expect(names.contains("..:..:etc"))
            #expect(names.contains("a:b"))
        }

        @Test func realNamesAndSymlinksIntoPackagesResolve() throws {
            let view = try fixture.mount(languages: "de")
            #expect(try FileStatus.of(view.path("Applications/Chess.app")).type == .directory)
            #expect(try listing(view.path("Applications/Chess.app/Contents")) == ["Info.plist", "MacOS", "Resources"])
            #expect(try contents(view.path("Applications/Chess.app/Contents/Info.plist")) == contents(fixture.tree.path("Applications/Chess.app/Contents/Info.plist")))
            // A relative symlink into a package, followed by the kernel through real names.
            #expect(try Descriptor.open(view.mountPoint, flags: O_PATH_DIRECTORY).readLink("chess-binary") == "Applications/Chess.app/Contents/MacOS/Chess")
            #expect(try contents(view.path("chess-binary")) == Array("#!/bin/sh\n".utf8))
            let shell = try Subprocess.run("/bin/sh", ["-c", "cd '\(view.path("Applications/Chess.app/Contents/Resources"))' && cat rules-link.html && ls ../MacOS"])
            #expect(shell.standardOutput == "Rules\nChess\n", "\(shell)")
            // Names that exist nowhere are answered (and cached) as missing.
            for _ in 0..<3 { #expect(throws: (any Error).self) { try FileStatus.of(view.path("Applications/NoSuch.app")) } }
        }
    }
}

extension MountedViewTests {
    /// SPEC.md "Names pass through": real names are listed as they are; only names from bundle
    /// metadata are made safe; no display name takes `.bundlefs`; a package listed under its real
    /// name keeps its real contents reachable through `.bundlefs/by-path`.
    @Suite struct NamesPassThrough {
        let fixture = ViewFixture()

        @Test func realNamesWithControlCharactersAreKept() throws {
            let odd = "tab\there\nnewline\u{1B}[31m.txt"
            fixture.tree.text("Plain/" + odd, "odd\n")
            fixture.tree.text("Plain/" + odd.replacingOccurrences(of: ".txt", with: "") + "/inside.txt", "inside\n")
            let view = try fixture.mount(languages: "en")
            #expect(try exactListing(view.path("Plain")).map(\.name).sorted() == [FileName(odd.replacingOccurrences(of: ".txt", with: "")), FileName(odd)])
            #expect(try contents(view.path("Plain/" + odd)) == Array("odd\n".utf8))
            // cp -r through the view copies the names as they are.
            let copy = fixture.directory.appending("copy")
            let cp = try Subprocess.run("/bin/cp", ["-r", view.path("Plain"), copy])
            #expect(cp.status == 0, "\(cp)")
            #expect(try exactListing(copy).map(\.name).contains(FileName(odd)))
            #expect(try contents(Paths.join(copy, odd)) == Array("odd\n".utf8))
        }

        @Test func metadataNamesAreMadeSafeWithoutLosingText() throws {
            // A NUL inside a display name is dropped, not the rest of the name with it.
            fixture.tree.macApp("Top/Nul.app", identifier: "org.example.nul", info: ["CFBundleDisplayName": .string("Nul")],
                                localizedStrings: ["en": ["CFBundleDisplayName": "nul\u{0}here"]])
            // A display name `.bundlefs` at the top cannot take the view's own directory.
            fixture.tree.macApp("Shadow.app", identifier: "org.example.shadow", info: ["CFBundleDisplayName": .string("Shadow")],
                                localizedStrings: ["en": ["CFBundleDisplayName": ".bundlefs"]])
            let view = try fixture.mount(languages: "en")
            #expect(try exactListing(view.path("Top")).map(\.name) == ["nulhere"])
            #expect(try FileStatus.of(view.path("Top/nulhere")).type == .regular)
            let top = try exactListing(view.mountPoint).map(\.name)
            #expect(top.contains("Shadow.app") && !top.contains(".bundlefs"), "\(top)")
            #expect(try FileStatus.of(view.path("Shadow.app")).type == .regular, "listed under its real name, as the package file")
            #expect(try exactListing(view.path(".bundlefs")).map(\.name).sorted() == ["by-id", "by-path", "by-uuid", "symbols"])
        }

        @Test func packagesListedUnderTheirRealNamesKeepTheirContentsReachable() throws {
            fixture.tree.macApp("Movies/Chess.mov.app", identifier: "org.example.chessmovie")
            fixture.tree.text("Photos/Album/photo.txt", "a photo\n")
            fixture.tree.setAttribute("Photos/Album", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x20))
            let view = try fixture.mount(languages: "en")
            // Both are listed under their real names, as files: those names reach the packages.
            #expect(try exactListing(view.path("Movies")).map(\.name) == ["Chess.mov.app"])
            #expect(try FileStatus.of(view.path("Movies/Chess.mov.app")).type == .regular)
            #expect(try FileStatus.of(view.path("Photos/Album")).type == .regular)
            // Their real contents, through .bundlefs/by-path.
            let info = try contents(view.path(".bundlefs/by-path/Movies/Chess.mov.app/Contents/Info.plist"))
            #expect(info == (try contents(fixture.tree.path("Movies/Chess.mov.app/Contents/Info.plist"))))
            #expect(try contents(view.path(".bundlefs/by-path/Photos/Album/photo.txt")) == Array("a photo\n".utf8))
            #expect(try exactListing(view.path(".bundlefs/by-path/Photos/Album")).map(\.name) == ["photo.txt"], "no Info.plist or Resources: not a bundle")
        }
    }
}
