import BundleModel
import Testing

@Suite struct LocalizationTests {
    func tags(_ list: String) throws -> [LanguageTag] { try PreferredLanguages.parse(list) }

    @Test(arguments: [
        ("en_GB", "en-GB"), ("English", "en"), ("German", "de"), ("de_DE.UTF-8", "de-DE"), ("de_DE@euro", "de-DE"),
        ("zh_Hant_TW", "zh-Hant-TW"), ("ZH-hans", "zh-Hans"), ("no", "nb"), ("Norwegian", "nb"), ("es_419", "es-419"),
        ("SimplifiedChinese", "zh-Hans"), ("TraditionalChinese", "zh-Hant"), ("Japanese", "ja"), ("pt_BR", "pt-BR"),
        ("eng", "en"),
    ])
    func tagsNormalize(raw: String, normalized: String) {
        #expect(LanguageTag(raw)?.description == normalized)
    }

    @Test func notLanguages() {
        for raw in ["C", "POSIX", "Base", "", "x", "toolongname"] { #expect(LanguageTag(raw) == nil, "\(raw)") }
    }

    @Test(arguments: [
        ("en-IN", ["en-IN", "en-GB", "en"]), ("es-MX", ["es-MX", "es-419", "es"]), ("pt-BR", ["pt-BR", "pt"]),
        ("zh-HK", ["zh-HK", "zh-Hant", "zh-TW", "zh"]), ("de-CH", ["de-CH", "de"]), ("zh-Hans-CN", ["zh-Hans-CN", "zh-Hans", "zh-CN", "zh"]),
        ("pt-AO", ["pt-AO", "pt-PT", "pt"]), ("en", ["en"]),
    ])
    func parentChains(tag: String, chain: [String]) {
        #expect(LanguageTag(tag)!.fallbackChain.map(\.description) == chain)
    }

    // BUNDLES.md section 7: lprojs en, en_GB, languages en-IN → chosen en_GB, then en.
    @Test func englishIndiaChoosesBritishThenEnglish() throws {
        let chooser = LocalizationChooser(lprojNames: ["en", "en_GB"])
        #expect(chooser.lprojSearchOrder(for: try tags("en-IN")) == ["en_GB", "en"])
    }

    // BUNDLES.md section 7: lprojs English, German, languages de-AT → German.lproj.
    @Test func legacyNamesMatch() throws {
        let chooser = LocalizationChooser(lprojNames: ["English", "German"])
        #expect(chooser.lprojSearchOrder(for: try tags("de-AT")).first == "German")
    }

    // BUNDLES.md section 7: development region English, only en.lproj, languages ja → the en strings.
    @Test func developmentRegionFindsItsLproj() throws {
        let chooser = LocalizationChooser(lprojNames: ["en"], developmentRegion: "English")
        #expect(chooser.lprojSearchOrder(for: try tags("ja")) == ["en"])
    }

    @Test func firstMatchingUserLanguageWinsThenDevelopmentRegion() throws {
        let chooser = LocalizationChooser(lprojNames: ["fr", "de", "en", "Base"], developmentRegion: "en")
        #expect(chooser.lprojSearchOrder(for: try tags("it,de-CH,fr")) == ["de", "Base", "en"])
        #expect(chooser.lprojSearchOrder(for: try tags("it")) == ["en", "Base"])
    }

    @Test func withoutDevelopmentRegionEnglishIsTheFallback() throws {
        #expect(LocalizationChooser(lprojNames: ["English", "fr"]).lprojSearchOrder(for: try tags("ja")) == ["English"])
        #expect(LocalizationChooser(lprojNames: ["fr"]).lprojSearchOrder(for: try tags("ja")).isEmpty)
    }

    @Test func isoSpellingBeforeLegacyForTheSameLanguage() throws {
        #expect(LocalizationChooser(lprojNames: ["English", "en"]).lprojSearchOrder(for: try tags("en")) == ["en", "English"])
    }

    @Test func declaredLocalizationsCountAsAvailable() throws {
        // de is declared but has no lproj: it is chosen (no files), then the development region's.
        let chooser = LocalizationChooser(lprojNames: ["en"], declaredLocalizations: ["de"], developmentRegion: "en")
        #expect(chooser.chosenTags(for: try tags("de,fr")).map(\.description) == ["de", "en"])
    }

    @Test func environmentLanguages() {
        #expect(PreferredLanguages.fromEnvironment(["LANG": "de_DE.UTF-8"]).map(\.description) == ["de-DE"])
        #expect(PreferredLanguages.fromEnvironment(["LANGUAGE": "fr_CH:fr:en", "LANG": "de_DE.UTF-8"]).map(\.description) == ["fr-CH", "fr", "en"])
        #expect(PreferredLanguages.fromEnvironment(["LC_ALL": "ja_JP.UTF-8", "LANG": "de_DE"]).map(\.description) == ["ja-JP"])
        #expect(PreferredLanguages.fromEnvironment(["LC_MESSAGES": "it_IT", "LANG": "de_DE"]).map(\.description) == ["it-IT"])
        // gettext ignores LANGUAGE when the locale is C.
        #expect(PreferredLanguages.fromEnvironment(["LANGUAGE": "fr", "LANG": "C"]).isEmpty)
        #expect(PreferredLanguages.fromEnvironment([:]).isEmpty)
    }

    @Test func badLanguageListsAreReported() {
        #expect(throws: LanguageListError.self) { try PreferredLanguages.parse("de,??") }
    }
}
