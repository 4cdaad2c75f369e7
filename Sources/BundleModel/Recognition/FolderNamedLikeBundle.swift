public import SystemCalls

/// A directory that only carries a bundle's extension is not a broken bundle (Docs/folders-named-like-bundles.md):
/// Debian's documentation folders of packages whose names end in `.app` (`/usr/share/doc/x.app`),
/// library folders so named under `/usr/lib`, header-only frameworks under `/usr/include`, and the
/// shared half of a Debian GNUstep application (rule 29a). Such a folder is catalogued with the kind
/// `folder`: no error, no Info read, no claims, left out of `query` unless asked for by kind. A Mac
/// would still show an `X.app` folder as one item, so its package reasons stay.
public enum FolderNamedLikeBundle {
    /// Whether a directory named like a bundle is only a folder so named: no Info file where its
    /// layout keeps one, and neither `Contents` nor `Resources` at its top, whatever they are (a
    /// Mac bundle missing its Info.plist, or a GNUstep one whose `Resources` link leads nowhere
    /// because its shared half is not installed, is a broken bundle, and says so).
    public static func applies(hasInfoFile: Bool, entries: [DirectoryEntry]) -> Bool {
        !hasInfoFile && !entries.contains { $0.name.equalsIgnoringASCIICase("contents") || $0.name.equalsIgnoringASCIICase("resources") }
    }
}
