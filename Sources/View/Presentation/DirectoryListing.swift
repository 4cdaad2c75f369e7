import BundleModel
import SystemCalls

/// One directory of the source as the view shows it: which entries are listed and under what
/// names (SPEC.md, "The view"). Hidden items (BUNDLES.md rule 5, `HiddenItems`) are not listed
/// but are still found by their real names; packages are listed as files
/// under their display names, `.localized` folders under their localized names; names are made
/// safe and unique. A raw listing (the `.bundlefs` views' raw contents) lists every real entry
/// under its real name.
struct DirectoryListing: Sendable {
    struct Entry: Sendable {
        var realName: FileName
        /// The name it is listed under; nil when hidden.
        var viewName: FileName?
        var status: FileStatus
        /// Listed (under its view name) as a tar file rather than a directory.
        var isPackage: Bool
    }

    /// In byte order of the real names.
    private(set) var entries: [Entry]
    /// Entries listed under a name other than their real one.
    private var renamed: [FileName: Int] = [:]
    /// The directory's own status when it was listed.
    let status: FileStatus

    enum Mode: Sendable { case view, raw }

    /// Lists and presents a directory. Fails when it cannot be opened (gone, not a directory,
    /// unreadable); entries that vanish while it is listed are left out.
    init(path: FilePath, mode: Mode, packages: PackageIndex, root: ScanRoot) throws {
        let directory = try Descriptor.open(path, flags: Descriptor.directoryNoFollow)
        status = try directory.status()
        let raw = try directory.listDirectoryTyped().sorted { $0.name < $1.name }
        var entries: [Entry] = []
        entries.reserveCapacity(raw.count)
        var sidecars = Set<FileName>()
        if mode == .view {
            for item in raw where item.name.hasPrefix("._") { sidecars.insert(item.name.dropping(prefixBytes: 2)) }
        }
        for item in raw {
            guard let status = try? directory.status(of: item.name) else { continue }
            guard mode == .view else {
                entries.append(Entry(realName: item.name, viewName: item.name, status: status, isPackage: false))
                continue
            }
            let childPath = path.appending(item.name)
            let package = status.type == .directory ? packages.entry(at: childPath) : nil
            var flags = package?.finderFlags
            if package == nil && !item.name.hasPrefix(".") {
                let sidecar = sidecars.contains(item.name) ? path.appending(item.name.prefixed("._")) : nil
                flags = FinderInfo.flags(ofItemAt: childPath, type: status.type, sidecar: sidecar)
            }
            let hidden = HiddenItems.isHidden(item.name, finderFlags: flags)
            var viewName: FileName?
            if !hidden {
                if let package, package.isPackage {
                    viewName = Self.listedName(package.displayName, realName: item.name)
                } else if status.type == .directory, DisplayNames.isLocalizedFolderName(item.name.string), let relative = root.relative(childPath) {
                    viewName = Self.listedName(LocalizedFolder.displayName(relativePath: relative, in: root, languages: packages.languages),
                                               realName: item.name)
                } else {
                    let shown = DisplayNames.forOtherItem(realName: item.name.string, extensionHidden: FinderInfo.isExtensionHidden(flags))
                    viewName = Self.listedName(shown, realName: item.name)
                }
            }
            entries.append(Entry(realName: item.name, viewName: viewName, status: status, isPackage: package?.isPackage == true && !hidden))
        }
        // `.bundlefs` at the top of the view is ours: no display name takes it.
        Self.makeUnique(&entries, reserved: path == root.path ? [BundleViews.directoryName] : [])
        self.entries = entries
        for (index, entry) in entries.enumerated() {
            if let viewName = entry.viewName, viewName != entry.realName { renamed[viewName] = index }
        }
    }

    /// The name an item is listed under when it is not its real name. Names that come from the
    /// real name (a stem, `Chess.mov.app`) pass through as they are, control characters and all;
    /// names that come from metadata (Info.plist, strings files) are made safe (SPEC.md, "Names
    /// pass through").
    static func listedName(_ name: String, realName: FileName) -> FileName {
        let candidate = FileName(name)
        if candidate == realName { return realName }
        if candidate == realName.stem { return candidate.isEmpty || candidate.isDotOrDotDot ? realName : candidate }
        return FileName(DisplayNames.sanitized(name, realName: realName.string))
    }

    /// Display names are unique within a directory. A name an item shows under its own real name
    /// is never given to another, nor is a `reserved` one; among items whose display names clash,
    /// the first in byte order of the real names keeps it and the later ones show their real names
    /// (which may displace others in turn: repeated until stable, which it becomes, since real
    /// names are unique).
    static func makeUnique(_ entries: inout [Entry], reserved: Set<FileName> = []) {
        while true {
            var taken = reserved
            for entry in entries where entry.viewName == entry.realName {
                taken.insert(entry.realName)
            }
            var changed = false
            for index in entries.indices {
                guard let name = entries[index].viewName, name != entries[index].realName else { continue }
                if taken.insert(name).inserted { continue }
                entries[index].viewName = entries[index].realName
                changed = true
            }
            if !changed { return }
        }
    }

    /// The entry listed under `name`.
    func entry(viewName name: FileName) -> Entry? {
        if let index = renamed[name] { return entries[index] }
        guard let entry = entry(realName: name), entry.viewName == name else { return nil }
        return entry
    }

    /// The entry whose real name is `name`, listed or not.
    func entry(realName name: FileName) -> Entry? {
        var low = 0, high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let candidate = entries[middle].realName
            if candidate == name { return entries[middle] }
            if candidate < name { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// The listed entries, in byte order of their real names.
    var visible: [Entry] { entries.filter { $0.viewName != nil } }

    /// The names the kernel may know entries by: view names that differ from real names.
    var renamedNames: [FileName] { Array(renamed.keys) }
}
