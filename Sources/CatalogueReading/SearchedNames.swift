public import BundleModel

extension BundleRecord {
    /// Every name a reader may know the bundle by, as a word search looks in them: its file name,
    /// identifier, real name, and its display name in each of its localizations (rules 13 and 16,
    /// the model's own choice per language) with the strings it is chosen from.
    public var searchedNames: [String] {
        var names = [name.string, displayName(for: [])]
        if let identifier { names.append(identifier) }
        for localization in infoPlistStrings.keys {
            if let tag = LanguageTag(localization.string) { names.append(displayName(for: [tag])) }
            for key in ["CFBundleDisplayName", "CFBundleName"] {
                if let value = infoPlistStrings[localization]?[key] { names.append(value) }
            }
        }
        return names
    }
}
