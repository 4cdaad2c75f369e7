import BundleModel
import Codecs
import SystemCalls
import Testing

@Suite struct DisplayNameTests {
    func record(_ path: String, info: [String: PlistValue], strings: [FileName: [String: String]], localizations: [String]) -> BundleRecord {
        var record = BundleRecord(key: FilePath(path))
        record.isBundle = true
        record.info = info
        record.infoPlistStrings = strings
        record.localizations = localizations
        return record
    }

    let german = [LanguageTag("de")!]

    // BUNDLES.md section 7: Chess.app, CFBundleDisplayName Chess, de.lproj says Schach, languages de → Schach.
    @Test func localizedApplicationName() {
        let chess = record("/A/Chess.app", info: ["CFBundleDisplayName": .string("Chess")],
                           strings: ["de": ["CFBundleDisplayName": "Schach"]], localizations: ["de"])
        #expect(chess.displayName(for: german) == "Schach")
        #expect(chess.displayName(for: [LanguageTag("fr")!]) == "Chess")
    }

    // BUNDLES.md section 7: the same bundle renamed Web.app, languages de → Web.
    @Test func renamedApplicationShowsItsStem() {
        let web = record("/A/Web.app", info: ["CFBundleDisplayName": .string("Chess")],
                         strings: ["de": ["CFBundleDisplayName": "Schach"]], localizations: ["de"])
        #expect(web.displayName(for: german) == "Web")
    }

    @Test func bundleNameStandsInForAMissingDisplayName() {
        let chess = record("/A/Chess.app", info: ["CFBundleName": .string("Chess")],
                           strings: ["de": ["CFBundleDisplayName": "Schach"]], localizations: ["de"])
        #expect(chess.displayName(for: german) == "Schach")
    }

    @Test func namesCompareAfterNormalization() {
        // "Café" with a combining accent in Info.plist, precomposed on disk.
        let cafe = record("/A/Caf\u{E9}.app", info: ["CFBundleDisplayName": .string("Cafe\u{301}")],
                          strings: ["de": ["CFBundleDisplayName": "Kaffee"]], localizations: ["de"])
        #expect(cafe.displayName(for: german) == "Kaffee")
    }

    // BUNDLES.md section 7: Chess.mov.app → Chess.mov.app.
    @Test func stemThatLooksLikeAnotherFileKeepsTheWholeName() {
        #expect(record("/A/Chess.mov.app", info: [:], strings: [:], localizations: []).displayName(for: german) == "Chess.mov.app")
        #expect(record("/A/Python 3.11.app", info: [:], strings: [:], localizations: []).displayName(for: german) == "Python 3.11")
        // Whatever the Info.plist says: a display name equal to the stem, localized or not.
        let named = record("/A/Chess.mov.app", info: ["CFBundleDisplayName": .string("Chess.mov")], strings: [:], localizations: [])
        #expect(named.displayName(for: german) == "Chess.mov.app")
        let localized = record("/A/Chess.mov.app", info: ["CFBundleDisplayName": .string("Chess.mov")],
                               strings: ["de": ["CFBundleDisplayName": "Schach"]], localizations: ["de"])
        #expect(localized.displayName(for: german) == "Chess.mov.app")
    }

    @Test func otherItemsKeepTheirExtensionUnlessHidden() {
        var plugin = record("/A/Tool.plugin", info: [:], strings: [:], localizations: [])
        #expect(plugin.displayName(for: german) == "Tool.plugin")
        plugin.finderFlags = 0x0010
        #expect(plugin.displayName(for: german) == "Tool")
    }

    /// Rule 17 for items that are not catalogued (the view's plain files and folders) is the same
    /// function: a file named like an application is not one, and keeps its name.
    @Test func plainItemsKeepTheirExtensionUnlessHidden() {
        #expect(DisplayNames.forOtherItem(realName: "notes.txt", extensionHidden: false) == "notes.txt")
        #expect(DisplayNames.forOtherItem(realName: "notes.txt", extensionHidden: true) == "notes")
        #expect(DisplayNames.forOtherItem(realName: "Makefile", extensionHidden: true) == "Makefile")
        #expect(DisplayNames.forOtherItem(realName: ".profile", extensionHidden: true) == ".profile")
        #expect(DisplayNames.forOtherItem(realName: "Chess.mov.app", extensionHidden: false) == "Chess.mov.app")
        #expect(DisplayNames.forOtherItem(realName: "Chess.mov.app", extensionHidden: true) == "Chess.mov")
    }

    @Test func globalInfoPlistStringsWins() {
        let app = record("/A/Chess.app", info: ["CFBundleDisplayName": .string("Chess")],
                         strings: ["": ["CFBundleDisplayName": "Global"], "de": ["CFBundleDisplayName": "Schach"]], localizations: ["de"])
        #expect(app.displayName(for: german) == "Global")
    }

    // BUNDLES.md section 7: Reports.localized/.localized/de.strings says Berichte; languages de / ja.
    @Test func localizedFolders() {
        let files: [FileName: StringsTable] = ["de": StringsTable(entries: ["Reports": "Berichte"])]
        #expect(DisplayNames.forLocalizedFolder(realName: "Reports.localized", stringsFiles: files, languages: german) == "Berichte")
        #expect(DisplayNames.forLocalizedFolder(realName: "Reports.localized", stringsFiles: files, languages: [LanguageTag("ja")!]) == "Reports")
        #expect(DisplayNames.isLocalizedFolderName("Reports.localized"))
        #expect(!DisplayNames.isLocalizedFolderName(".localized"))
    }

    @Test(arguments: [
        ("../../etc", "..:..:etc"), ("a/b", "a:b"), ("tab\there\u{7}", "tabhere"), (".", "Real.app"), ("..", "Real.app"),
        ("\u{0}\u{1}", "Real.app"), ("AC/DC: live", "AC:DC: live"),
    ])
    func hostileNamesAreMadeSafe(hostile: String, safe: String) {
        #expect(DisplayNames.sanitized(hostile, realName: "Real.app") == safe)
    }

    @Test func longNamesAreCutAtACharacterBoundary() {
        let long = String(repeating: "ä", count: 5000)
        let safe = DisplayNames.sanitized(long, realName: "x")
        #expect(safe.utf8.count <= 255)
        #expect(safe.utf8.count == 254)
        #expect(safe.allSatisfy { $0 == "ä" })
    }
}
