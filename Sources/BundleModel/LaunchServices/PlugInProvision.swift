/// Rule 31: what a bundle provides to others: the plug-in types named by the keys of
/// CFPlugInTypes (UUIDs, compared without case or hyphens) and the extension point named by
/// NSExtension → NSExtensionPointIdentifier.
public enum PlugInProvision {
    /// A plug-in type as compared: lower-case hex, no hyphens (as `BinarySlice.uuidKey` spells
    /// UUIDs); nil when it is not a UUID.
    public static func typeKey(_ text: String) -> String? { BinarySlice.uuidKey(text) }

    /// The plug-in types `info` provides, as keys.
    public static func plugInTypes(_ info: InfoDictionary) -> [String] {
        (info.raw["CFPlugInTypes"]?.dictionary?.keys.compactMap(typeKey) ?? []).sorted()
    }

    public static func extensionPoint(_ info: InfoDictionary) -> String? {
        info.raw["NSExtension"]?.dictionary?["NSExtensionPointIdentifier"]?.string
    }
}
