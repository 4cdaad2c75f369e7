import BundleModel
import Catalogue
import Indexer
import SystemCalls
import Testing
import TestSupport

/// Launch Services on real bundles: Debian's GNUstep applications claim with GNUstep's NSTypes
/// (Preview, TextEdit) or with CFBundleDocumentTypes (Chess in the corpus).
@Suite struct LaunchServicesCorpusTests {
    let temporary = TemporaryDirectory("launch-corpus")

    func catalogue(indexing roots: [String]) throws -> Catalogue {
        let catalogue = try Catalogue(path: FilePath(temporary.appending("catalogue.sqlite")), mode: .readWrite)
        for root in roots { _ = try Indexer(catalogue: catalogue).index(root: FilePath(root)) }
        return catalogue
    }

    static func names(_ handlers: [HandlerRanking.Handler]) -> [String] { handlers.map { $0.application.path.lastComponent.string } }

    @Test(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
    func chessClaimsItsDocumentsWithCFBundleDocumentTypes() throws {
        let catalogue = try catalogue(indexing: [Corpus.tree!])
        let handlers = try catalogue.handlers(of: .file(extension: "chess"))
        #expect(Self.names(handlers) == ["Chess.app"])
        #expect(handlers.first?.claim == LaunchClaim(target: .fileExtension("chess"), role: .editor, rank: .default))
        #expect(try catalogue.handlers(of: .file(extension: "txt")).isEmpty)
    }

    @Test(.enabled(if: DebianPackages.unpacked("preview.app") != nil && DebianPackages.unpacked("textedit.app") != nil,
                   Comment(rawValue: DebianPackages.skipMessage("preview.app and textedit.app"))))
    func debiansGNUstepApplicationsClaimWithNSTypes() throws {
        // Indexed where Debian installs them: their Resources link into usr/share (rule 12).
        let roots = ["preview.app", "textedit.app"].map { Paths.join(DebianPackages.unpacked($0)!, "usr/lib/GNUstep") }
        let catalogue = try catalogue(indexing: roots)
        let jpeg = try catalogue.handlers(of: .file(extension: "JPG"))
        #expect(Self.names(jpeg) == ["Preview.app"])
        #expect(jpeg.first?.claim.role == .viewer && jpeg.first?.claim.rank == .default)
        #expect(Self.names(try catalogue.handlers(of: .file(extension: "png"))) == ["Preview.app"])
        #expect(Self.names(try catalogue.handlers(of: .file(extension: "rtf"))) == ["TextEdit.app"])
        // Through the type's MIME type, too: public.jpeg is image/jpeg, which Preview lists.
        #expect(Self.names(try catalogue.handlers(of: .type("public.jpeg"))) == ["Preview.app"])
        #expect(try catalogue.handlers(of: .file(extension: "chess")).isEmpty)
    }

    /// Rule 29 as GNUstep's make_services reads NSTypes, on Debian's own packages: AddressManager's
    /// entry has no NSRole (an editor, as GNUstep answers), PikoPixel's `pikogrid` has role None
    /// (an icon: no handler unless asked for all).
    @Test(.enabled(if: DebianPackages.unpacked("addressmanager.app") != nil && DebianPackages.unpacked("pikopixel.app") != nil,
                   Comment(rawValue: DebianPackages.skipMessage("addressmanager.app and pikopixel.app"))))
    func debiansNSTypesAreReadAsMakeServicesReadsThem() throws {
        let roots = ["addressmanager.app", "pikopixel.app"].map { Paths.join(DebianPackages.unpacked($0)!, "usr/lib/GNUstep") }
        let catalogue = try catalogue(indexing: roots)
        #expect(Self.names(try catalogue.handlers(of: .file(extension: "vcf"), role: .editor)) == ["AddressManager.app"])
        #expect(try catalogue.handlers(of: .file(extension: "pikogrid")).isEmpty)
        let all = try catalogue.handlers(of: .file(extension: "pikogrid"), all: true)
        #expect(Self.names(all) == ["PikoPixel.app"] && all.first?.claim.role == LaunchClaim.Role.none)
        #expect(Self.names(try catalogue.handlers(of: .file(extension: "piko"), role: .editor)) == ["PikoPixel.app"])
    }

    /// Rule 29a on Debian's own packages, indexed whole as a newcomer indexes /usr: the shared
    /// halves in usr/share/GNUstep are the applications' resources, catalogued as folders, so each
    /// application answers once, from usr/lib.
    @Test(.enabled(if: DebianPackages.unpacked("preview.app") != nil && DebianPackages.unpacked("textedit.app") != nil,
                   Comment(rawValue: DebianPackages.skipMessage("preview.app and textedit.app"))))
    func debiansSharedHalvesAreNoSecondApplication() throws {
        let roots = ["preview.app", "textedit.app"].map { Paths.join(DebianPackages.unpacked($0)!, "usr") }
        let catalogue = try catalogue(indexing: roots)
        for (ext, name) in [("rtf", "TextEdit.app"), ("txt", "TextEdit.app"), ("jpg", "Preview.app")] {
            let handlers = try catalogue.handlers(of: .file(extension: ext))
            #expect(handlers.map(\.application.path.string).filter { $0.hasSuffix("/" + name) }.count == 1, "\(ext): \(handlers.map(\.application.path))")
            #expect(handlers.allSatisfy { $0.application.path.string.contains("/usr/lib/GNUstep/Applications/") }, "\(ext)")
        }
        for (root, name) in zip(roots, ["Preview.app", "TextEdit.app"]) {
            let half = try #require(try catalogue.bundles(atPaths: [FilePath(Paths.join(root, "share/GNUstep/\(name)"))]).first)
            #expect(half.record.kind == "folder" && !half.record.isBundle && half.record.errors == [])
            let application = try #require(try catalogue.bundles(atPaths: [FilePath(Paths.join(root, "lib/GNUstep/Applications/\(name)"))]).first)
            #expect(application.record.isApplication && application.record.errors == [], "\(application.record.errors)")
        }
    }

    /// Rule 29a's other layouts, on Debian's packages that ship both halves: Gorm's palettes
    /// (`Applications/Gorm.app/Resources/0Menus.palette/Resources` links to
    /// `share/GNUstep/Gorm.app/0Menus.palette`), Grr's file-by-file links, Cynthiune's framework
    /// (`Versions/0/Resources` links into `share/GNUstep/Frameworks`) and bundles. Whole, nothing
    /// in them has an error, and nothing under share/GNUstep is a bundle: each half is a folder.
    @Test(.enabled(if: ["gorm.app", "grr.app", "cynthiune.app"].allSatisfy { DebianPackages.unpacked($0) != nil },
                   Comment(rawValue: DebianPackages.skipMessage("gorm.app, grr.app and cynthiune.app"))))
    func debiansSharedHalvesOfEveryLayoutAreFolders() throws {
        let roots = ["gorm.app", "grr.app", "cynthiune.app"].map { Paths.join(DebianPackages.unpacked($0)!, "usr") }
        let catalogue = try catalogue(indexing: roots)
        for root in roots {
            let bundles = try catalogue.bundles(matching: BundleQuery(under: FilePath(root)))
            #expect(bundles.filter { !$0.record.errors.isEmpty }.map(\.record.key) == [], "\(root)")
            #expect(bundles.filter { $0.record.key.string.contains("/share/GNUstep/") }.map(\.record.key) == [], "\(root)")
            let folders = try catalogue.bundles(matching: BundleQuery(kind: "folder", under: FilePath(Paths.join(root, "share/GNUstep"))))
            #expect(!folders.isEmpty, "\(root)")
        }
        #expect(Self.names(try catalogue.handlers(of: .file(extension: "gorm"))) == ["Gorm.app"])
    }
}
