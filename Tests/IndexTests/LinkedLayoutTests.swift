import BundleModel
import Catalogue
import Fixtures
import Foundation
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Rule 12 for an index (issue 25): Debian's GNUstep packages link
/// `lib/GNUstep/Applications/X.app/Resources` into `share/GNUstep`; an index of the `lib` tree alone
/// reads them as `show` does, following links out of the root when root or the indexing user made
/// them, and no link another user made.
@Suite struct LinkedLayoutTests {
    let fixture: IndexFixture
    let app = "lib/GNUstep/Applications/Terminal.app"

    init() throws {
        fixture = try IndexFixture()
        let tree = fixture.tree
        let shared = "share/GNUstep/Applications/Terminal.app/Resources"
        tree.plist(shared + "/Info-gnustep.plist", .dictionary([
            "CFBundleIdentifier": .string("org.gap.Terminal"), "NSExecutable": .string("Terminal"), "ApplicationName": .string("Terminal"),
        ]), format: .openStep)
        tree.strings(shared + "/German.lproj/Localizable.strings", ["Open": "Öffnen"])
        tree.strings(shared + "/English.lproj/Localizable.strings", ["Open": "Open"])
        tree.text(app + "/Terminal", "elf", mode: 0o755)
        tree.symlink(app + "/Resources", to: "../../../../share/GNUstep/Applications/Terminal.app/Resources")
    }

    func shown(_ relative: String) throws -> BundleRecord {
        let root = try ScanRoot.fileSystemRoot()
        return try #require(BundleInspector(root: root).inspect(try DirectoryContext.open(FilePath(fixture.tree.path(relative)), in: root)))
    }

    @Test func anIndexOfTheLibTreeReadsWhatShowReads() throws {
        try fixture.index(fixture.tree.path("lib"))
        let indexed = try #require(try fixture.catalogue.bundle(atPath: FilePath(fixture.tree.path(app)))?.record)
        let shown = try shown(app)
        #expect(indexed.identifier == "org.gap.Terminal")
        #expect(indexed.errors.isEmpty, "\(indexed.errors)")
        #expect(indexed.localizations == ["English", "German"])
        #expect(indexed.executable == FilePath(fixture.tree.path(app + "/Terminal")))
        for (what, agrees) in [("identifier", indexed.identifier == shown.identifier), ("localizations", indexed.localizations == shown.localizations),
                               ("errors", indexed.errors == shown.errors), ("executable", indexed.executable == shown.executable),
                               ("info", indexed.info == shown.info), ("layout", indexed.layout == shown.layout)] {
            #expect(agrees, "index and show disagree on \(what)")
        }
    }

    @Test func aLinkAnotherUserMadeDoesNotLeadAnIndexOutOfTheRoot() throws {
        // Made by nobody (65534): inside the root it still counts; out of it, it is not followed.
        let link = fixture.tree.path(app + "/Resources")
        #expect(lchown(link, 65534, 65534) == 0)
        try fixture.index(fixture.tree.path("lib"))
        let indexed = try #require(try fixture.catalogue.bundle(atPath: FilePath(fixture.tree.path(app)))?.record)
        #expect(indexed.identifier == nil, "a stranger's link led the index to \(indexed.identifier ?? "")")
        // The whole tree as root (a catalogue of its own): the same link stays inside and is followed.
        let whole = try Catalogue(path: fixture.directory.appending("whole.sqlite"), mode: .readWrite)
        _ = try Indexer(catalogue: whole, options: fixture.options).index(root: FilePath(fixture.tree.root))
        #expect(try whole.bundle(atPath: FilePath(fixture.tree.path(app)))?.record.identifier == "org.gap.Terminal")
    }
}

/// The same on Debian's own package, unpacked as dpkg installs it, indexed from its `lib` tree.
@Suite(.enabled(if: DebianPackages.terminal != nil, Comment(rawValue: DebianPackages.skipMessage("terminal.app"))))
struct DebianLinkedLayoutTests {
    @Test func debiansTerminalIndexedFromItsLibTree() throws {
        let fixture = try IndexFixture()
        let lib = Paths.join(DebianPackages.terminal!, "usr/lib/GNUstep")
        _ = try Indexer(catalogue: fixture.catalogue, options: fixture.options).index(root: FilePath(lib))
        let app = FilePath(Paths.join(lib, "Applications/Terminal.app"))
        let indexed = try #require(try fixture.catalogue.bundle(atPath: app)?.record)
        #expect(indexed.identifier == "org.gap.Terminal")
        #expect(indexed.errors.isEmpty, "\(indexed.errors)")
        #expect(indexed.localizations.contains("German"))
        let root = try ScanRoot.fileSystemRoot()
        let shown = try #require(BundleInspector(root: root).inspect(try DirectoryContext.open(app, in: root)))
        #expect(shown.identifier == indexed.identifier && shown.localizations == indexed.localizations && shown.info == indexed.info)
    }
}
