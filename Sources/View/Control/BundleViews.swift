import BundleModel
import Codecs
import IconImages
import SystemCalls

/// The `.bundlefs` tree (SPEC.md, "Resolved resource views"): `by-id/<identifier>` and
/// `by-path/<real path under SOURCE>`, each one bundle's view: its effective `Info.plist`, its
/// `Resources/` resolved by the bundle search pattern for the mount's languages, and its raw
/// contents. What a view shows comes from the bundle's whole catalogued record. Nothing here
/// follows a path out of SOURCE.
struct BundleViews: Sendable {
    let source: ScanRoot
    let packages: PackageIndex
    let records: RecordCache

    static let directoryName: FileName = ".bundlefs"
    static let byID: FileName = "by-id"
    static let byPath: FileName = "by-path"
    static let infoName: FileName = "Info.plist"
    static let resourcesName: FileName = "Resources"
    static let iconName: FileName = "Icon.png"

    /// Whether a view shows a bundle (with `Info.plist` and `Resources`) rather than a package's
    /// raw contents only.
    func showsBundle(_ key: BundleViewKey) -> Bool {
        bundlePath(forView: key).flatMap(packages.entry(at:))?.isBundle == true
    }

    /// The bundle (or package) a view shows now: by-id follows the highest version (see
    /// `PackageIndex`).
    func bundlePath(forView key: BundleViewKey) -> FilePath? {
        switch key {
        case let .identifier(identifier): packages.bundle(forIdentifier: identifier)?.path
        case let .path(path): packages.entry(at: path)?.hasView == true ? path : nil
        }
    }

    func record(forView key: BundleViewKey) -> BundleRecord? {
        bundlePath(forView: key).flatMap(records.record(at:))
    }

    /// The effective Info dictionary (the whole raw dictionary, InfoPlist.strings values for the
    /// mount's languages applied) as an XML property list.
    func infoBytes(forView key: BundleViewKey) -> [UInt8]? {
        guard let path = bundlePath(forView: key) else { return nil }
        return records.infoBytes(at: path) { PropertyListWriter.xml(.dictionary($0.effectiveInfo(for: packages.languages))) }
    }

    /// Whether a view offers `Icon.png`: its bundle (or claimed document package) has an icon file
    /// on disk (one inside an archive is not read out of it).
    func hasIcon(_ key: BundleViewKey) -> Bool { record(forView: key).map { $0.icon != nil && $0.archive == nil } ?? false }

    /// The archive a view's bundle is inside, if it is: its view is its `Info.plist` alone.
    func archive(forView key: BundleViewKey) -> FilePath? {
        bundlePath(forView: key).flatMap(packages.entry(at:))?.archive
    }

    /// The icon as PNG (rule 22), converted when first asked for and kept with the record. The
    /// file is opened beneath SOURCE: an icon reached through a link out of it is not shown.
    func iconBytes(forView key: BundleViewKey, failure: (String) -> Void) -> [UInt8]? {
        guard let path = bundlePath(forView: key) else { return nil }
        return records.iconBytes(at: path, stamp: { record in
            guard let relative = record.icon.flatMap(source.relative), let status = source.status(relative) else { return nil }
            return FileStamp(path: relative, changeTime: status.changeTime, size: status.size, inode: status.inode)
        }) { record in
            guard let icon = record.icon, let relative = source.relative(icon) else { return nil }
            do {
                return try IconConverter.png(from: try source.open(relative, flags: Descriptor.readOnly))
            } catch {
                failure("icon \(icon): \(error)")
                return nil
            }
        }
    }

    // MARK: by-id and by-path

    /// Identifiers usable as names, sorted: what `by-id` lists.
    func listedIdentifiers() -> [String] { packages.identifiers().filter(Self.isUsableAsName) }

    /// Whether `by-id` lists this name: one lookup, whatever the number of bundles.
    func isListedIdentifier(_ name: FileName) -> Bool {
        let identifier = name.string
        return FileName(identifier) == name && Self.isUsableAsName(identifier) && packages.hasBundle(identifier: identifier)
    }

    private static func isUsableAsName(_ identifier: String) -> Bool {
        identifier != "." && identifier != ".." && identifier.utf8.count <= 255 && !identifier.utf8.contains(0)
    }

    enum PathStep: Sendable {
        case bundle(path: FilePath)
        case intermediate(relative: FilePath)
    }

    /// What `by-path/<prefix>/<name>` is.
    func pathStep(prefix: FilePath, name: FileName) -> PathStep? {
        guard !name.isDotOrDotDot, !name.string.utf8.contains(UInt8(ascii: "/")) else { return nil }
        let relative = prefix.appending(name)
        let absolute = source.absolute(relative)
        if packages.entry(at: absolute)?.hasView == true { return .bundle(path: absolute) }
        return packages.viewPaths(under: absolute).isEmpty ? nil : .intermediate(relative: relative)
    }

    /// The names under `by-path/<prefix>`: the next component of every bundle path below it.
    func pathNames(prefix: FilePath) -> [FileName] {
        let base = source.absolute(prefix)
        var names = Set<FileName>()
        for path in packages.viewPaths(under: base) {
            guard let relative = path.relative(to: base), let first = relative.components.first else { continue }
            names.insert(first)
        }
        return names.sorted()
    }

    // MARK: Resources

    enum Resource: Sendable {
        case file(path: FilePath, status: FileStatus)
        case directory(subpath: FilePath)
    }

    /// The item the bundle search pattern picks for `subpath/name`, confined to SOURCE.
    func resource(forView key: BundleViewKey, subpath: FilePath, name: FileName) -> Resource? {
        guard let record = record(forView: key), !name.hasPrefix("._"), name != ".DS_Store",
              let resolver = try? ResourceResolver(record: record, within: source)
        else { return nil }
        let path = subpath.appending(name)
        guard let resolution = try? resolver.resolve(path.string, languages: packages.languages),
              let real = try? resolution.path.resolved(), real.isWithin(source.path),
              let status = try? FileStatus.of(real)
        else { return nil }
        switch status.type {
        case .directory: return .directory(subpath: path)
        case .regular: return .file(path: real, status: status)
        default: return nil
        }
    }

    /// Every resource name under `subpath`, lproj level removed: the union of the global
    /// directory and the chosen localizations' ones, each name once, those that resolve.
    func resourceNames(forView key: BundleViewKey, subpath: FilePath) -> [(name: FileName, resource: Resource)] {
        guard let record = record(forView: key), let path = record.diskPath, let bundle = source.relative(path) else { return [] }
        var names = Set<FileName>()
        for level in record.searchLevels(for: packages.languages) {
            // At a resources directory's global level, lprojs are not resources.
            let isTop = level.localization == nil && subpath.isEmpty
            guard let handle = try? source.open(bundle.appending(level.directory).appending(subpath), flags: Descriptor.directoryNoFollowFinal),
                  let entries = try? handle.listDirectoryTyped()
            else { continue }
            for entry in entries {
                if isTop && entry.name.isLproj { continue }
                names.insert(entry.name)
            }
        }
        return names.sorted().compactMap { name in
            resource(forView: key, subpath: subpath, name: name).map { (name, $0) }
        }
    }
}
