public import SystemCalls

/// A directory that only carries a bundle's extension is not a broken bundle (Docs/folders-named-like-bundles.md):
/// Debian's documentation folders of packages whose names end in `.app` (`/usr/share/doc/x.app`),
/// library folders so named under `/usr/lib`, header-only frameworks under `/usr/include`, and the
/// shared half of a Debian GNUstep application (rule 29a). Such a folder is catalogued with the kind
/// `folder`: no error, no Info read, no claims, left out of `query` unless asked for by kind. A Mac
/// would still show an `X.app` folder as one item, so its package reasons stay.
public enum FolderNamedLikeBundle {
    /// Whether a directory named like a bundle is only a folder so named: no Info file where its
    /// layout keeps one, and no `Contents/` (a Mac bundle missing its Info.plist is a broken bundle,
    /// and says so).
    public static func applies(hasInfoFile: Bool, entries: [DirectoryEntry]) -> Bool {
        !hasInfoFile && !entries.contains { $0.name.equalsIgnoringASCIICase("contents") }
    }
}

/// Rule 29a: Debian installs a GNUstep application in two halves, the executable in
/// `<prefix>/lib/GNUstep/Applications/X.app`, whose `Resources` is a link to
/// `<prefix>/share/GNUstep/X.app` (Info-gnustep.plist, nibs, images). The shared half belongs to the
/// bundle that links to it: it is a folder, never a second application.
public enum DebianSharedHalf {
    /// The bundle whose `Resources` link leads to `directory` (an absolute path on disk), when
    /// there is one: the link must be root's or the indexing user's (as `TrustedLinks`), and lead
    /// to this very directory (same device and inode), not merely to one of the same name.
    public static func linkingBundle(of directory: FilePath) -> FilePath? {
        let components = directory.components
        // …/share/GNUstep/<rest>: the halves Debian installs, applications and the rest alike.
        guard let share = components.indices.dropLast(2).last(where: {
            components[$0] == "share" && components[$0 + 1] == "GNUstep"
        }) else { return nil }
        let prefix = components[..<share].reduce(directory.isAbsolute ? FilePath.root : FilePath.here) { $0.appending($1) }
        let rest = Array(components[(share + 2)...])
        guard let target = try? FileStatus.of(directory, followSymlinks: true), target.type == .directory else { return nil }
        let lib: [FileName] = ["lib", "GNUstep"]
        for candidate in [lib + ["Applications"] + rest, lib + rest] {
            let bundle = candidate.reduce(prefix) { $0.appending($1) }
            let link = bundle.appending("Resources")
            guard let status = try? FileStatus.of(link), status.type == .symlink, TrustedLinks.isTrusted(owner: status.userID),
                  let resolved = try? FileStatus.of(link, followSymlinks: true),
                  resolved.identity == target.identity
            else { continue }
            return bundle
        }
        return nil
    }
}
