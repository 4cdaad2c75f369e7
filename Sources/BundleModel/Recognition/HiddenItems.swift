public import SystemCalls

/// Rule 5: what the Finder does not list (unless asked to show it): AppleDouble `._*` sidecars,
/// `.DS_Store`, other dot-files, and items whose Finder info has the invisible flag. Hidden items
/// still exist; the view resolves them by their real names.
public enum HiddenItems {
    /// kIsInvisible in the finderFlags word (`fi[8] & 0x40`).
    public static let invisibleFlag: UInt16 = 0x4000

    public static func isHidden(_ name: FileName, finderFlags: UInt16?) -> Bool {
        // `._name` and `.DS_Store` are dot-files too.
        name.hasPrefix(".") || (finderFlags ?? 0) & invisibleFlag != 0
    }
}
