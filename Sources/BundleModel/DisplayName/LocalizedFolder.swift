public import SystemCalls

/// Rule 18 from disk: the display name of a `Name.localized` directory, from the strings files
/// in its `.localized` subdirectory.
public enum LocalizedFolder {
    /// The name to show for a directory relative to `root`; its plain name (without
    /// `.localized`) when nothing applies. Unreadable strings files are skipped.
    public static func displayName(relativePath: FilePath, in root: ScanRoot, languages: [LanguageTag], limit: Int = 1 << 20) -> String {
        let name = relativePath.lastComponent.string
        guard DisplayNames.isLocalizedFolderName(name) else { return name }
        let strings = relativePath.appending(".localized")
        var tables: [FileName: StringsTable] = [:]
        for entry in root.list(strings)?.entries ?? [] where entry.type == .regular && entry.name.lowercasedExtension == "strings" {
            guard let (bytes, _) = try? root.readRegularFile(strings.appending(entry.name), limit: limit, knownRegular: true),
                  let table = try? StringsFileReader.read(bytes)
            else { continue }
            tables[entry.name.stem] = table
        }
        return DisplayNames.forLocalizedFolder(realName: name, stringsFiles: tables, languages: languages)
    }
}
