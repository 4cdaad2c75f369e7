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
}
