import BundleModel
import Testing
import TestSupport

/// The real GNUstep bundles of ../shared/corpus, as Debian ships them (slimmed).
@Suite(.enabled(if: Corpus.isAvailable, Comment(rawValue: Corpus.skipMessage)))
struct CorpusTests {
    func record(_ relative: String) throws -> BundleRecord {
        let root = try ScanRoot(path: Corpus.tree!)
        let directory = try DirectoryContext.open(Corpus.path(relative), in: root)
        return try #require(BundleInspector(root: root).inspect(directory))
    }

    @Test func terminal() throws {
        let terminal = try record("Applications/Terminal.app")
        #expect(terminal.identifier == "org.gap.Terminal")
        #expect(terminal.kind == "application")
        #expect(terminal.layout == .resources)
        #expect(terminal.infoFile == "Resources/Info-gnustep.plist")
        #expect(terminal.infoFormat == .openStep)
        #expect(terminal.executable == Corpus.path("Applications/Terminal.app/Terminal"))
        #expect(terminal.localizations == ["English", "French", "German", "Hungarian", "Italian", "Norwegian", "Russian", "Spanish", "Swedish", "Turkish"])
        #expect(terminal.packageReasons == .extension)
        #expect(terminal.errors.isEmpty, "\(terminal.errors)")
        #expect(terminal.info["Copyright"] == .string("Copyright © 2002-2003, 2009-2017"))
        // Norwegian.lproj is nb; German.lproj answers de-AT.
        let chooser = terminal.localizationChooser
        #expect(chooser.lprojSearchOrder(for: [LanguageTag("nb-NO")!]).first == "Norwegian")
        #expect(chooser.lprojSearchOrder(for: [LanguageTag("de-AT")!]) == ["German", "English"])
    }

    @Test func chess() throws {
        let chess = try record("Applications/Chess.app")
        #expect(chess.identifier == nil)
        #expect(chess.kind == "application")
        #expect(chess.localizations == ["English"])
        #expect(chess.executable == Corpus.path("Applications/Chess.app/Chess"))
        #expect(chess.documentTypes.first?.extensions == ["chess"])
        // It lists chess documents but not as packages, so it claims nothing.
        #expect(chess.documentTypes.first?.isPackage == false)
        #expect(ClaimResolver.claims(of: [.init(path: chess.key, documentTypes: chess.documentTypes, typeDeclarations: [])]).isEmpty)
        #expect(chess.displayName(for: [LanguageTag("de")!]) == "Chess")
    }

    @Test func afficheLatin1StringsDoNotBreakIt() throws {
        let affiche = try record("Applications/Affiche.app")
        #expect(affiche.kind == "application")
        #expect(affiche.localizations == ["English", "French", "German", "Lojban", "Spanish", "Swedish"])
        #expect(affiche.errors.isEmpty, "\(affiche.errors)")
        let german = try StringsFileReader.read(Array(try readCorpusFile("Applications/Affiche.app/Resources/German.lproj/Localizable.strings")))
        #expect(german["Close"] == "Schließen")
        #expect(german.encoding == .windows1252)
    }

    @Test func chessUTF16BigEndianStrings() throws {
        let table = try StringsFileReader.read(try readCorpusFile("Applications/Chess.app/Resources/English.lproj/Localizable.strings"))
        #expect(table.encoding == .utf16BigEndian)
        #expect(table["no_hint"] == "I don't have a hint.")
    }

    @Test func systemPreferences() throws {
        let preferences = try record("Applications/SystemPreferences.app")
        #expect(preferences.kind == "application")
        #expect(preferences.executable != nil)
        #expect(preferences.errors.isEmpty, "\(preferences.errors)")
    }

    @Test func pantomimeFramework() throws {
        let framework = try record("Library/Frameworks/Pantomime.framework")
        #expect(framework.kind == "framework")
        #expect(!framework.isPackage)
        #expect(framework.layout == .versionedFramework)
        #expect(framework.infoFile == "Versions/1.3/Resources/Info-gnustep.plist")
        #expect(framework.localizations == ["English", "German"])
        #expect(framework.localizedString("CFBundleShortVersionString", for: [LanguageTag("de")!]) == "Pantomime Version 1.2.0")
        #expect(framework.localizedString("NSHumanReadableCopyright", for: [LanguageTag("de")!]) == "© 2001–2004 Ludovic Marcotte.")
        #expect(framework.localizedString("CFBundleShortVersionString", for: [LanguageTag("fr")!]) == "Pantomime version 1.2.0")
    }
}

func readCorpusFile(_ relative: String) throws -> [UInt8] {
    let root = try ScanRoot(path: Corpus.tree!)
    return try root.readRegularFile(relative, limit: 1 << 20).bytes
}
