public import SystemCalls

/// What the Finder shows for an item (BUNDLES.md section 5).
public enum DisplayNames {
    /// Rules 16 and 17 for a bundle or package.
    /// - Parameters:
    ///   - realName: the name on disk (`Chess.app`).
    ///   - nameInInfo: Info.plist's CFBundleDisplayName, else its CFBundleName (not localized).
    ///   - localizedDisplayName: CFBundleDisplayName localized by rule 13, if there is one.
    ///   - extensionHidden: the Finder info's hidden-extension flag.
    public static func forItem(
        realName: String, nameInInfo: String?, localizedDisplayName: String?, extensionHidden: Bool
    ) -> String {
        guard FileNames.lowercasedExtension(realName) == "app" else {
            return forOtherItem(realName: realName, extensionHidden: extensionHidden)
        }
        let stem = FileNames.stem(realName)
        // A stem that would pass for another kind of file (`Chess.mov`) shows the whole name,
        // whatever the Info.plist says: this check comes first.
        if hasExtensionOfItsOwn(stem) { return realName }
        // Swift compares strings by canonical equivalence, which is what comparing NFC forms means.
        if let nameInInfo, nameInInfo == stem, let localized = localizedDisplayName, !localized.isEmpty {
            return localized
        }
        // The user renamed the bundle, or it names nothing: the stem.
        return stem
    }

    /// Rule 17 for anything but an application (a package, a plain file or folder): it keeps its
    /// extension, unless its Finder info has the hidden-extension flag.
    public static func forOtherItem(realName: String, extensionHidden: Bool) -> String {
        extensionHidden ? FileNames.stem(realName) : realName
    }

    /// Whether a stem ends in something that reads as a file extension: a dot followed by 1 to 8
    /// letters and digits with at least one letter (`Chess.mov` yes; `Python 3.11`, `Foo 2.0` no).
    public static func hasExtensionOfItsOwn(_ stem: String) -> Bool {
        guard let ext = FileNames.pathExtension(stem), (1...8).contains(ext.count) else { return false }
        return ext.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit } && ext.contains { $0.isASCIILetter }
    }

    /// Rule 18: `Name.localized` shows the value for `Name` in the chosen
    /// `Name.localized/.localized/<lang>.strings`, else `Name`.
    /// - Parameters:
    ///   - stringsFiles: the available strings tables by file stem (`de` for `de.strings`).
    public static func forLocalizedFolder(
        realName: String, stringsFiles: [FileName: StringsTable], languages: [LanguageTag]
    ) -> String {
        let name = FileNames.stem(realName)
        let chooser = LocalizationChooser(lprojNames: stringsFiles.keys.map(\.string))
        for stem in chooser.lprojSearchOrder(for: languages) {
            if let value = stringsFiles[FileName(stem)]?[name], !value.isEmpty { return value }
        }
        return name
    }

    /// Whether a directory name asks for rule 18.
    public static func isLocalizedFolderName(_ name: String) -> Bool {
        FileNames.pathExtension(name) == "localized" && FileNames.stem(name) != ""
    }

    /// A display name made safe to list in a directory: `/` shown as `:` (the Finder's mapping,
    /// reversed), control characters dropped, at most 255 bytes cut at a character boundary, and
    /// never empty, `.` or `..` (the real name is used then).
    public static func sanitized(_ displayName: String, realName: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in displayName.unicodeScalars {
            switch scalar.value {
            case 0x2F: scalars.append(":")
            case 0x00...0x1F, 0x7F...0x9F: continue
            default: scalars.append(scalar)
            }
        }
        var result = String(scalars)
        if result.utf8.count > 255 {
            var cut = ""
            for character in result {
                if cut.utf8.count + String(character).utf8.count > 255 { break }
                cut.append(character)
            }
            result = cut
        }
        if result.isEmpty || result == "." || result == ".." { return realName }
        return result
    }
}
