import Codecs

/// The user's languages, in order of preference, as BCP 47 tags (rule 11).
public enum PreferredLanguages {
    /// Parses `--lang de-CH,en` (commas or colons between tags). Entries that are not languages
    /// are reported, not ignored silently.
    public static func parse(_ list: String) throws(LanguageListError) -> [LanguageTag] {
        var tags: [LanguageTag] = []
        for item in list.split(whereSeparator: { $0 == "," || $0 == ":" }) {
            let text = String(item).trimmingSpaces
            if text.isEmpty { continue }
            guard let tag = LanguageTag(text) else { throw LanguageListError(entry: text) }
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// The variables `fromEnvironment` reads.
    public static let variables = ["LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"]

    /// The languages the environment asks for, as gettext reads them: `LANGUAGE` (a colon-separated
    /// list) unless the locale is `C`/`POSIX`, else the first of `LC_ALL`, `LC_MESSAGES`, `LANG`.
    public static func fromEnvironment(_ environment: [String: String]) -> [LanguageTag] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        let localeTag = locale.flatMap(LanguageTag.init)
        if let list = environment["LANGUAGE"], !list.isEmpty, locale == nil || localeTag != nil {
            let tags = list.split(separator: ":").compactMap { LanguageTag(String($0)) }
            if !tags.isEmpty { return tags }
        }
        return localeTag.map { [$0] } ?? []
    }
}

public struct LanguageListError: Error, CustomStringConvertible {
    public var entry: String
    public var description: String { "\"\(entry)\" is not a language tag (expected something like de-CH or en)" }
}
