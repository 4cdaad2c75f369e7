import SystemCalls

/// Rule 18 from disk: the display name of a `Name.localized` directory, from the strings files
/// in its `.localized` subdirectory.
public enum LocalizedFolder {
    /// The name to show for a directory relative to `root`; its plain name (without
    /// `.localized`) when nothing applies. Unreadable strings files are skipped.
    public static func displayName(relativePath: String, in root: ScanRoot, languages: [LanguageTag], limit: Int = 1 << 20) -> String {
        let name = Paths.lastComponent(relativePath)
        guard DisplayNames.isLocalizedFolderName(name) else { return name }
        let strings = Paths.join(relativePath, ".localized")
        var tables: [String: StringsTable] = [:]
        for entry in root.list(strings)?.entries ?? [] where entry.type == .regular && FileNames.lowercasedExtension(entry.name) == "strings" {
            guard let (bytes, _) = try? root.readRegularFile(Paths.join(strings, entry.name), limit: limit, knownRegular: true),
                  let table = try? StringsFileReader.read(bytes)
            else { continue }
            tables[FileNames.stem(entry.name)] = table
        }
        return DisplayNames.forLocalizedFolder(realName: name, stringsFiles: tables, languages: languages)
    }
}
