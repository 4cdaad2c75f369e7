import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// A directory of the view read with getdents64 (no libc in between): every entry as the
/// kernel returned it, names as bytes, inode numbers included.
func exactListing(_ path: String) throws -> [DirectoryEntry] {
    try Descriptor.open(path, flags: Descriptor.directoryNoFollow).listDirectory()
}

/// What readdir(3) returns, as `ls` and every program see it (glibc skips entries whose d_ino is 0).
func libcListingCount(_ path: String) throws -> Int {
    guard let directory = opendir(path) else { throw SystemError.last("opendir", path: path) }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
        if name != [0x2E] && name != [0x2E, 0x2E] { count += 1 }
    }
    return count
}

private let nfc = "R\u{E9}sum\u{E9}"
private let nfd = "Re\u{301}sume\u{301}"

extension MountedViewTests {
    /// SPEC.md "The view" with names that are bytes, listings of thousands of entries, and the
    /// effective Info.plist whole.
    @Suite struct Exactness {
        let fixture = ViewFixture()

        /// Folders and files whose names differ only in normalization are two items in the view:
        /// both listed, each opened by the exact bytes readdir returned, each its own bundle.
        @Test func normalizationTwinsAreTwoItems() throws {
            for (name, cafe, identifier) in [(nfc, "caf\u{E9}", "com.example.nfc"), (nfd, "cafe\u{301}", "com.example.nfd")] {
                fixture.tree.macApp("Shared/\(name)/Writer.app", identifier: identifier, info: ["CFBundleName": .string("Writer")])
                fixture.tree.text("Shared/\(name)/owner.txt", identifier + "\n")
                fixture.tree.text("Shared/\(cafe).txt", identifier + "\n")
            }
            let view = try fixture.mount(languages: "en")
            let shared = try exactListing(view.path("Shared"))
            #expect(Set(shared.map(\.name)) == [FileName(nfc), FileName(nfd), FileName("caf\u{E9}.txt"), FileName("cafe\u{301}.txt")])
            for entry in shared {
                let path = Paths.join(view.path("Shared"), entry.name.string)
                if entry.name.string.hasSuffix(".txt") {
                    let expected = entry.name == FileName("caf\u{E9}.txt") ? "com.example.nfc\n" : "com.example.nfd\n"
                    #expect(try contents(path) == Array(expected.utf8), "\(entry.name.bytes)")
                    continue
                }
                let identifier = entry.name == FileName(nfc) ? "com.example.nfc" : "com.example.nfd"
                #expect(try contents(Paths.join(path, "owner.txt")) == Array((identifier + "\n").utf8), "\(entry.name.bytes)")
                #expect(try exactListing(path).map(\.name).contains("Writer"), "the package is listed under its display name")
                let tar = try contents(Paths.join(path, "Writer"))
                #expect(tar.count > 1024)
                let info = try PropertyListReader.read(try contents(view.path(".bundlefs/by-path/Shared/\(entry.name.string)/Writer.app/Info.plist"))).value
                #expect(info.dictionary?["CFBundleIdentifier"] == .string(identifier), "\(entry.name.bytes)")
            }
            // Live: deleting one twin leaves the other, in the view as in the source.
            fixture.tree.remove("Shared/\(nfd)")
            try poll(timeout: 60, "the NFD twin to go") { try !exactListing(view.path("Shared")).map(\.name).contains(FileName(nfd)) }
            #expect(try contents(view.path("Shared/\(nfc)/owner.txt")) == Array("com.example.nfc\n".utf8))
            #expect(throws: (any Error).self) { try FileStatus.of(view.path("Shared/\(nfd)/owner.txt")) }
        }

        /// `.bundlefs/by-id/ID/Info.plist` and `by-path/…/Info.plist` are the effective Info
        /// dictionary: every key of the source, nested values intact, localized values applied.
        @Test func theEffectiveInfoPlistIsWhole() throws {
            let info: [String: PlistValue] = [
                "CFBundleName": .string("Atlas"), "CFBundleDisplayName": .string("Atlas"), "CFBundleVersion": .string("3.2"),
                "CFBundleDevelopmentRegion": .string("en"), "NSHumanReadableCopyright": .string("© 2026 Example"),
                "LSHasLocalizedDisplayName": .bool(true), "LSMinimumSystemVersion": .string("12.0"),
                "NSPrincipalClass": .string("NSApplication"), "ComExampleVendorKey": .integer(-7), "ComExampleRatio": .real(0.5),
                "ComExampleBuilt": .date(757_382_400), "ComExampleBlob": .data([0xDE, 0xAD, 0xBE, 0xEF]),
                "CFBundleDocumentTypes": .array([.dictionary([
                    "CFBundleTypeName": .string("Atlas Map"), "CFBundleTypeExtensions": .array([.string("atlasmap")]),
                    "LSItemContentTypes": .array([.string("com.example.atlas.map")]), "CFBundleTypeRole": .string("Editor"),
                ])]),
                "ComExampleNested": .dictionary(["levels": .array([.dictionary(["deeper": .array([.bool(false), .integer(3)])])])]),
            ]
            fixture.tree.macApp("Applications/Atlas.app", identifier: "org.example.atlas", info: info,
                                localizedStrings: ["de": ["CFBundleDisplayName": "Weltatlas", "NSHumanReadableCopyright": "© 2026 Beispiel"]])
            let view = try fixture.mount(languages: "de")
            var expected = info
            expected["CFBundleIdentifier"] = .string("org.example.atlas")
            expected["CFBundlePackageType"] = .string("APPL")
            expected["CFBundleExecutable"] = .string("Atlas")
            expected["CFBundleDisplayName"] = .string("Weltatlas")
            expected["NSHumanReadableCopyright"] = .string("© 2026 Beispiel")
            for path in [".bundlefs/by-id/org.example.atlas/Info.plist", ".bundlefs/by-path/Applications/Atlas.app/Info.plist"] {
                let effective = try PropertyListReader.read(try contents(view.path(path))).value
                #expect(effective == .dictionary(expected), "\(path)")
                #expect(try FileStatus.of(view.path(path)).size == Int64(try contents(view.path(path)).count))
            }
            // An edit of the strings file shows in the effective Info.plist.
            fixture.tree.strings("Applications/Atlas.app/Contents/Resources/de.lproj/InfoPlist.strings", ["CFBundleDisplayName": "Atlas der Welt"])
            try poll(timeout: 60, "the edited display name") {
                let effective = try PropertyListReader.read(try contents(view.path(".bundlefs/by-id/org.example.atlas/Info.plist"))).value
                // The copyright is no longer localized: the Info.plist's own value again.
                return effective.dictionary?["CFBundleDisplayName"] == .string("Atlas der Welt")
                    && effective.dictionary?["NSHumanReadableCopyright"] == info["NSHumanReadableCopyright"]
            }
        }

        /// Every listing gives every entry a real inode number: past the first batch of a large
        /// directory too (glibc skips entries whose d_ino is 0, so `ls` lost most of them).
        @Test func largeListingsLoseNothing() throws {
            let count = 1600
            for index in 0..<count { fixture.tree.macApp("Many/App\(index).app", identifier: "org.example.many\(index)") }
            for index in 0..<1200 { fixture.tree.text("Many/App0.app/Contents/Resources/resource\(index).txt", "\(index)") }
            for index in 0..<3000 { fixture.tree.text("Plain/file\(index).txt", "") }
            let view = try fixture.mount(languages: "en")
            let directories: [(String, Int)] = [
                (".bundlefs/by-id", count + 2), (".bundlefs/by-path/Many", count), (".bundlefs/by-id/org.example.many0/Resources", 1200),
                ("Many", count), ("Plain", 3000), (".bundlefs/by-path", 4), (".bundlefs", 2), (".bundlefs/by-id/org.example.many1", 3),
            ]
            for (directory, expected) in directories {
                let entries = try exactListing(view.path(directory))
                #expect(entries.count >= expected, "\(directory): \(entries.count) entries")
                #expect(entries.allSatisfy { $0.inode != 0 }, "\(directory): \(entries.filter { $0.inode == 0 }.count) entries with inode 0")
                #expect(try libcListingCount(view.path(directory)) == entries.count, "\(directory)")
            }
            // The inode readdir gives is the one stat gives.
            for entry in try exactListing(view.path(".bundlefs/by-id")).prefix(20) {
                #expect(try FileStatus.of(view.path(".bundlefs/by-id/" + entry.name.string)).inode == entry.inode)
            }
        }
    }
}

extension MountedViewTests {
    @Suite struct StormAttributes {
        let fixture = ViewFixture()

        /// After a storm of changes (frameworks and apps renamed, then lprojs added and files
        /// written inside them), every directory the kernel had cached shows the source's
        /// modification time again within seconds: none stays stale until its cache timeout.
        /// (A renamed framework's `Versions/A/Resources`, reached through its `Resources` link,
        /// once lost its watch to a phantom path, and changes there never reached the kernel.)
        @Test func directoryTimesAreFreshAfterAStorm() throws {
            let tree = fixture.tree
            for group in 0..<4 {
                for index in 0..<5 {
                    tree.macFramework("Storm\(group)/Lib\(index).framework", identifier: "org.example.storm.lib\(group).\(index)")
                    tree.strings("Storm\(group)/Lib\(index).framework/Versions/A/Resources/en.lproj/InfoPlist.strings", ["CFBundleName": "Lib"])
                    tree.macApp("Storm\(group)/App\(index).app", identifier: "org.example.storm.app\(group).\(index)",
                                localizedStrings: ["en": ["CFBundleDisplayName": "App \(index)"]])
                }
            }
            let view = try fixture.mount(languages: "en")
            for group in 0..<4 {
                for index in 0..<5 {
                    tree.rename("Storm\(group)/Lib\(index).framework", "Storm\(group)/Renamed\(index).framework")
                    tree.rename("Storm\(group)/App\(index).app", "Storm\(group)/Moved\(index).app")
                }
                tree.rename("Storm\(group)/Moved0.app", "Storm\((group + 1) % 4)/Across\(group).app")
            }
            try waitForConvergence(catalogue: view.catalogue, root: tree.root, timeout: 10, "the renames")
            // The kernel caches every directory's attributes now, at their new paths.
            let directories = try realDirectories(under: tree.root).filter { $0.hasPrefix("Storm") }
            for relative in directories { _ = try FileStatus.of(view.path(relative)) }
            for group in 0..<4 {
                for index in 0..<5 {
                    let resources = "Storm\(group)/Renamed\(index).framework/Versions/A/Resources"
                    tree.strings("\(resources)/fr.lproj/InfoPlist.strings", ["CFBundleName": "Bibliothèque"])
                    tree.text("\(resources)/en.lproj/notes.txt", "n")
                    if index > 0 { tree.text("Storm\(group)/Moved\(index).app/Contents/Resources/en.lproj/added.txt", "a") }
                }
                tree.text("Storm\(group)/loose.txt", "l")
            }
            try poll(timeout: 60, "every directory's time in the view to equal the source's") {
                try realDirectories(under: tree.root).filter { $0.hasPrefix("Storm") }.allSatisfy { relative in
                    let source = try FileStatus.of(tree.path(relative))
                    guard let shown = try? FileStatus.of(view.path(relative)) else { return false }
                    return shown.modificationTime == source.modificationTime
                }
            }
        }

        /// Every real directory under `root`, relative to it.
        func realDirectories(under root: String) throws -> [String] {
            var result: [String] = []
            var pending = [""]
            while let relative = pending.popLast() {
                result.append(relative)
                for entry in try exactListing(Paths.join(root, relative)) where entry.type == .directory {
                    pending.append(relative.isEmpty ? entry.name.string : relative + "/" + entry.name.string)
                }
            }
            return result
        }
    }
}
