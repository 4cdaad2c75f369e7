import Codecs

/// A BCP 47 language tag, normalised as BUNDLES.md rule 10 asks: `_` and `-` are the same, legacy
/// English names map to ISO codes (`German` → `de`), `no` means `nb`, language lower-case, script
/// title-case, region upper-case. POSIX locale names (`de_DE.UTF-8@euro`) parse too.
public struct LanguageTag: Hashable, Sendable, CustomStringConvertible, Comparable {
    public var language: String
    public var script: String?
    public var region: String?

    public init(language: String, script: String? = nil, region: String? = nil) {
        self.language = language
        self.script = script
        self.region = region
    }

    /// Parses a tag, an lproj stem or a POSIX locale name; nil for `C`, `POSIX`, `Base` and
    /// anything that is not a language.
    public init?(_ text: String) {
        var raw = Substring(text)
        if let dot = raw.firstIndex(of: ".") { raw = raw[..<dot] }      // de_DE.UTF-8
        if let at = raw.firstIndex(of: "@") { raw = raw[..<at] }        // de_DE@euro
        let trimmed = String(raw).trimmingSpaces
        if trimmed.isEmpty || trimmed == "C" || trimmed == "POSIX" || trimmed.lowercased() == "base" { return nil }
        if let legacy = LegacyLanguageNames.table[trimmed] ?? LegacyLanguageNames.table[trimmed.replacingSpaces] {
            self = LanguageTag(legacy)!
            return
        }
        let parts = trimmed.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy(\.isASCIILetter) else { return nil }
        var language = first.lowercased()
        language = LegacyLanguageNames.threeLetter[language] ?? language
        if language == "no" { language = "nb" }
        self.language = language
        for part in parts.dropFirst() {
            if part.count == 4, part.allSatisfy(\.isASCIILetter), script == nil, region == nil {
                script = part.prefix(1).uppercased() + part.dropFirst().lowercased()
            } else if (part.count == 2 && part.allSatisfy(\.isASCIILetter)) || (part.count == 3 && part.allSatisfy(\.isASCIIDigit)),
                      region == nil {
                region = part.uppercased()
            } else {
                break // variants and extensions do not take part in matching
            }
        }
    }

    public var description: String {
        [language, script, region].compactMap { $0 }.joined(separator: "-")
    }

    public var languageOnly: LanguageTag { LanguageTag(language: language) }

    public static func < (lhs: LanguageTag, rhs: LanguageTag) -> Bool { lhs.description < rhs.description }

    /// The tag followed by its parents, most specific first, ending with the language alone
    /// (rule 11): `en-IN` → `en-GB`, `en`; `es-MX` → `es-419`, `es`; `pt-BR` → `pt`;
    /// `zh-HK` → `zh-Hant`, `zh-TW`, `zh`.
    public var fallbackChain: [LanguageTag] {
        var chain: [LanguageTag] = [self]
        var current = self
        while let parent = current.parent, !chain.contains(parent) {
            chain.append(parent)
            current = parent
        }
        if !chain.contains(languageOnly) { chain.append(languageOnly) }
        return chain
    }

    /// The next tag to try after this one, or nil at the language alone.
    var parent: LanguageTag? {
        if let special = LanguageParents.special[description] { return LanguageTag(special) }
        if let region, script == nil {
            if language == "en", LanguageParents.britishEnglishRegions.contains(region) { return LanguageTag("en-GB") }
            if language == "es", LanguageParents.latinAmericanRegions.contains(region) { return LanguageTag("es-419") }
            if language == "pt", LanguageParents.europeanPortugueseRegions.contains(region) { return LanguageTag("pt-PT") }
        }
        if region != nil { return LanguageTag(language: language, script: script) }
        if script != nil { return languageOnly }
        return nil
    }
}

enum LanguageParents {
    /// Parents that do not follow from dropping a subtag.
    static let special: [String: String] = [
        "zh-HK": "zh-Hant", "zh-MO": "zh-Hant", "zh-TW": "zh-Hant",
        "zh-CN": "zh-Hans", "zh-SG": "zh-Hans",
        // Old bundles name their Chinese lprojs by region: zh_TW for Traditional, zh_CN for Simplified.
        "zh-Hant": "zh-TW", "zh-Hans": "zh-CN",
    ]
    static let britishEnglishRegions: Set<String> = [
        "001", "150", "AU", "BE", "BW", "BZ", "CY", "DE", "GG", "GI", "HK", "IE", "IL", "IM", "IN", "JE", "MT", "MU",
        "MY", "NG", "NZ", "PK", "SG", "ZA", "ZW",
    ]
    static let latinAmericanRegions: Set<String> = [
        "AR", "BO", "BR", "BZ", "CL", "CO", "CR", "CU", "DO", "EC", "GT", "HN", "MX", "NI", "PA", "PE", "PR", "PY",
        "SV", "US", "UY", "VE",
    ]
    static let europeanPortugueseRegions: Set<String> = ["AO", "CH", "CV", "GQ", "GW", "LU", "MO", "MZ", "ST", "TL"]
}

extension Character {
    var isASCIILetter: Bool { isASCII && isLetter }
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    var replacingSpaces: String { String(filter { $0 != " " }) }
}
