import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

extension MountedViewTests {
    /// `.bundlefs/by-id` and `.bundlefs/by-path`: the effective Info.plist and resources resolved
    /// by the bundle search pattern for the mount's languages.
    @Suite struct ResolvedViews {
        let fixture = ViewFixture()

        @Test func resourcesAreWhatTheSearchPatternPicks() throws {
            // Links are followed as CFBundle follows them, but never out of SOURCE (rule 12).
            fixture.tree.symlink("Applications/Chess.app/Contents/Resources/escape", to: "/etc/hostname")
            fixture.tree.symlink("Applications/Chess.app/Contents/Resources/escape-relative", to: "../../../../../outside-source.txt")
            TreeWriter(root: fixture.directory.path).text("outside-source.txt", "beside SOURCE, not in it\n")
            let view = try fixture.mount(languages: "de")
            #expect(!(try listing(view.mountPoint)).contains(".bundlefs"), ".bundlefs is reachable, not listed")
            #expect(try listing(view.path(".bundlefs")) == ["by-id", "by-path", "by-uuid", "symbols"])
            let chess = view.path(".bundlefs/by-id/org.example.chess")
            #expect(try listing(chess) == ["Contents", "Info.plist", "Resources"])
            let resources = try listing(Paths.join(chess, "Resources"))
            #expect(resources == ["Empty Folder", "InfoPlist.strings", "MainMenu.nib", "Rules.html", "Sounds", "big.bin", "board.png",
                                  "outside", "private.txt", "rules-link.html"], "\(resources)")
            #expect(!resources.contains("OnlyFrench.txt"), "a resource no chosen localization has is not listed")
            let expectations = [
                "Rules.html": "Regeln\n", "board.png": "global board\n", "MainMenu.nib": "base nib\n",
                "Sounds/move.aiff": "global move\n", "Sounds/check.aiff": "Schach!\n", "rules-link.html": "Rules\n",
            ]
            for (resource, text) in expectations {
                #expect(try contents(Paths.join(chess, "Resources/" + resource)) == Array(text.utf8), "\(resource)")
                // The same file `bundlefs resolve` names.
                let resolved = try Subprocess.bundlefs(["resolve", fixture.tree.path("Applications/Chess.app"), resource, "--lang", "de"],
                                                       catalogue: fixture.directory.appending("resolve.sqlite"))
                let picked = resolved.standardOutput.trimmingCharacters(in: .newlines)
                #expect(try contents(Paths.join(chess, "Resources/" + resource)) == contents(picked), "\(resource): \(resolved)")
            }
            #expect(try listing(Paths.join(chess, "Resources/Sounds")) == ["check.aiff", "move.aiff"])
            // The effective Info.plist carries the German display name; the raw one does not.
            let info = try PropertyListReader.read(try contents(Paths.join(chess, "Info.plist"))).value.dictionary ?? [:]
            #expect(info["CFBundleDisplayName"]?.string == "Schach")
            #expect(info["CFBundleIdentifier"]?.string == "org.example.chess")
            #expect(info["CFBundleVersion"]?.string == "2.0", "by-id shows the highest version")
            // by-path reaches every bundle by its real path, the older copy included.
            #expect(try listing(view.path(".bundlefs/by-path/Applications")) == ["Chess.app", "Old"])
            let old = try PropertyListReader.read(try contents(view.path(".bundlefs/by-path/Applications/Old/Chess.app/Info.plist"))).value
            #expect(old.dictionary?["CFBundleVersion"]?.string == "1.0")
            #expect(try contents(view.path(".bundlefs/by-path/Applications/Chess.app/Contents/MacOS/Chess")) == Array("#!/bin/sh\n".utf8))
            // A symlink out of the bundle to elsewhere in SOURCE is followed; one out of SOURCE never is.
            #expect(try contents(Paths.join(chess, "Resources/outside")) == Array("read me\n".utf8))
            #expect(throws: (any Error).self) { try FileStatus.of(Paths.join(chess, "Resources/escape")) }
            #expect(throws: (any Error).self) { try FileStatus.of(Paths.join(chess, "Resources/escape-relative")) }

            let english = try fixture.mount(languages: "en")
            #expect(try contents(english.path(".bundlefs/by-id/org.example.chess/Resources/Rules.html")) == Array("Rules\n".utf8))
            #expect(try listing(english.path(".bundlefs/by-id/org.example.chess/Resources/Sounds")) == ["move.aiff"])
        }
    }
}
