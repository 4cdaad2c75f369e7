public import Codecs

extension BundleRecord {
    /// The Info dictionary as the bundle presents it to the user's languages (rule 13): the
    /// InfoPlist.strings table the bundle search pattern picks (rule 12) overrides the values of
    /// the keys it has, as CFBundleGetLocalizedInfoDictionary does.
    public func effectiveInfo(for languages: [LanguageTag]) -> [String: PlistValue] {
        var info = self.info
        for (key, value) in chosenInfoPlistStrings(for: languages) ?? [:] { info[key] = .string(value) }
        return info
    }
}
