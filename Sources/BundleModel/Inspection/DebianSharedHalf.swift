public import SystemCalls

/// Rule 29a: Debian installs a GNUstep bundle in two halves: the code under `<prefix>/lib/GNUstep`,
/// whose `Resources` (a framework's `Versions/<v>/Resources`) is a link into `<prefix>/share/GNUstep`
/// (Info-gnustep.plist, nibs, images). The shared half belongs to the bundle that links to it: it is
/// a folder, never a second bundle. Debian's own layouts, each seen in its GNUstep packages:
///
/// | shared half (under share/GNUstep) | the bundle that links to it (under lib/GNUstep) |
/// |---|---|
/// | `X.app` | `Applications/X.app` |
/// | `X.extr`, `X.prefPane` | `Bundles/X.extr`, `Bundles/X.prefPane` |
/// | `Frameworks/X.framework`, `Bundles/X.prefPane`, `ApplicationSupport/GNUMail/X.prefs` | the same path |
/// | `Gorm.app/0Menus.palette` | `Applications/Gorm.app/Resources/0Menus.palette` |
///
/// One package (grr.app) links file by file instead: its `Resources` is a folder whose
/// `Info-gnustep.plist` is a link to the shared half's.
public enum DebianSharedHalf {
    /// The bundle whose `Resources` link leads to `directory` (an absolute path on disk), or into
    /// it (a framework's version), when there is one. The link must be root's or the indexing
    /// user's (as `TrustedLinks`), and lead to this very directory (same device and inode), not
    /// merely to one of the same name.
    public static func linkingBundle(of directory: FilePath) -> FilePath? {
        // Asked of every bundle read: most paths have no such component, and are not split.
        guard directory.hasComponent("GNUstep") else { return nil }
        let components = directory.components
        guard let share = components.indices.dropLast(2).last(where: {
            components[$0] == "share" && components[$0 + 1] == "GNUstep"
        }) else { return nil }
        let prefix = components[..<share].reduce(directory.isAbsolute ? FilePath.root : FilePath.here) { $0.appending($1) }
        let rest = Array(components[(share + 2)...])
        guard let half = try? FileStatus.of(directory, followSymlinks: true), half.type == .directory else { return nil }
        // What a link may lead to: the half, or one of its versions (a framework's).
        var targets: Set<FileIdentity> = [half.identity]
        for version in (try? Descriptor.open(directory.appending("Versions"), flags: Descriptor.directoryNoFollow).listDirectory()) ?? [] {
            if let status = try? FileStatus.of(directory.appending("Versions").appending(version.name), followSymlinks: true) {
                targets.insert(status.identity)
            }
        }
        let info = (try? FileStatus.of(directory.appending("Info-gnustep.plist"))).flatMap { $0.type == .regular ? $0.identity : nil }
        let lib = prefix.appending("lib").appending("GNUstep")
        let categories = ((try? Descriptor.open(lib, flags: Descriptor.directoryNoFollow).listDirectory()) ?? []).map(\.name)
        var candidates: [[FileName]] = [rest]
        for category in categories {
            candidates.append([category] + rest)
            if rest.count > 1 { candidates.append([category, rest[0], "Resources"] + rest.dropFirst()) }
        }
        for candidate in candidates {
            let bundle = candidate.reduce(lib) { $0.appending($1) }
            if leadsInto(bundle.appending("Resources"), targets) { return bundle }
            if let info, leadsInto(bundle.appending("Resources").appending("Info-gnustep.plist"), [info]) { return bundle }
            let versions = bundle.appending("Versions")
            for version in (try? Descriptor.open(versions, flags: Descriptor.directoryNoFollow).listDirectory()) ?? []
            where leadsInto(versions.appending(version.name).appending("Resources"), targets) {
                return bundle
            }
        }
        return nil
    }

    /// Whether `link` is a trusted symlink to one of `targets`.
    private static func leadsInto(_ link: FilePath, _ targets: Set<FileIdentity>) -> Bool {
        guard let status = try? FileStatus.of(link), status.type == .symlink, TrustedLinks.isTrusted(owner: status.userID),
              let resolved = try? FileStatus.of(link, followSymlinks: true)
        else { return false }
        return targets.contains(resolved.identity)
    }
}
