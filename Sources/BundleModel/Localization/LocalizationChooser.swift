/// Chooses which localizations of a bundle to use, in order (BUNDLES.md rule 11), and turns them
/// into the lproj names the bundle search pattern tries (rule 12).
public struct LocalizationChooser: Sendable {
    /// Real lproj names (without `.lproj`) by the tag they normalise to. Names that are not a
    /// language (`Base`, `Lojban-ish`) are kept aside.
    private var namesByTag: [LanguageTag: [String]] = [:]
    private var declared: Set<LanguageTag> = []
    private let hasBase: Bool
    private let developmentRegion: LanguageTag?

    /// - Parameters:
    ///   - lprojNames: the real names of the bundle's `*.lproj` directories, without the extension.
    ///   - declaredLocalizations: CFBundleLocalizations, which count as available too.
    ///   - developmentRegion: CFBundleDevelopmentRegion as written (`English`, `en`, `en_US`).
    public init(lprojNames: [String], declaredLocalizations: [String] = [], developmentRegion: String? = nil) {
        var base = false
        for name in lprojNames {
            if name == "Base" { base = true; continue }
            guard let tag = LanguageTag(name) else { continue }
            namesByTag[tag, default: []].append(name)
        }
        // Within one tag, the ISO spelling (`en`) before legacy ones (`English`), then by name.
        for (tag, names) in namesByTag {
            namesByTag[tag] = names.sorted { lhs, rhs in
                let lhsISO = lhs.replacingUnderscores == tag.description
                let rhsISO = rhs.replacingUnderscores == tag.description
                if lhsISO != rhsISO { return lhsISO }
                return lhs < rhs
            }
        }
        declared = Set(declaredLocalizations.compactMap(LanguageTag.init))
        hasBase = base
        self.developmentRegion = developmentRegion.flatMap(LanguageTag.init)
    }

    private func isAvailable(_ tag: LanguageTag) -> Bool { namesByTag[tag] != nil || declared.contains(tag) }

    /// The chosen localizations for the user's languages, most preferred first: for the first
    /// user language that matches anything, the tag and its parents that are available; then the
    /// development region (or `en` when the bundle names none).
    public func chosenTags(for preferred: [LanguageTag]) -> [LanguageTag] {
        var chosen: [LanguageTag] = []
        for language in preferred {
            let matches = language.fallbackChain.filter(isAvailable)
            if !matches.isEmpty { chosen = matches; break }
        }
        let fallback = developmentRegion ?? LanguageTag(language: "en")
        if let match = fallback.fallbackChain.first(where: isAvailable), !chosen.contains(match) {
            chosen.append(match)
        }
        return chosen
    }

    /// The lproj names (without `.lproj`) to try after the global resource, in order: each chosen
    /// localization's real directories, with `Base` right after the first one.
    public func lprojSearchOrder(for preferred: [LanguageTag]) -> [String] {
        var order: [String] = []
        for (position, tag) in chosenTags(for: preferred).enumerated() {
            order += namesByTag[tag] ?? []
            if position == 0 && hasBase { order.append("Base") }
        }
        if order.isEmpty && hasBase { order.append("Base") }
        return order
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}
