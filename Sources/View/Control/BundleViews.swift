import BundleModel
import Catalogue
import SystemCalls

/// The `.bundlefs` tree (SPEC.md, "Resolved resource views"): `by-id/<identifier>` and
/// `by-path/<real path under SOURCE>`, each one bundle's view: its effective `Info.plist`, its
/// `Resources/` resolved by the bundle search pattern for the mount's languages, and its raw
/// contents. Nothing here follows a path out of SOURCE.
struct BundleViews: Sendable {
    let source: ScanRoot
    let packages: PackageIndex
    let catalogue: Catalogue

    static let directoryName = ".bundlefs"
    static let byID = "by-id"
    static let byPath = "by-path"
    static let infoName = "Info.plist"
    static let resourcesName = "Resources"

    /// What a bundle view shows is named by `i:<identifier>` or `p:<absolute path>`.
    static func detail(identifier: String) -> String { "i:" + identifier }
    static func detail(path: String) -> String { "p:" + path }

    /// The bundle a view shows now: by-id follows the highest version (see `PackageIndex`).
    func bundlePath(forView detail: String) -> String? {
        if detail.hasPrefix("i:") { return packages.bundle(forIdentifier: String(detail.dropFirst(2)))?.path }
        let path = String(detail.dropFirst(2))
        return packages.entry(at: path)?.isBundle == true ? path : nil
    }

    func record(forView detail: String) -> BundleRecord? {
        guard let path = bundlePath(forView: detail) else { return nil }
        return (try? catalogue.bundle(atPath: path))?.record
    }

    /// The effective Info dictionary as an XML property list.
    func infoBytes(forView detail: String) -> [UInt8]? {
        guard let record = record(forView: detail) else { return nil }
        return PropertyListWriter.xml(.dictionary(record.effectiveInfo(for: packages.languages)))
    }

    // MARK: by-id and by-path

    /// Identifiers usable as names.
    func identifiers() -> [String] {
        packages.identifiers().filter { $0 != "." && $0 != ".." && $0.utf8.count <= 255 && !$0.contains("\0") }
    }

    enum PathStep: Sendable {
        case bundle(path: String)
        case intermediate(relative: String)
    }

    /// What `by-path/<prefix>/<name>` is.
    func pathStep(prefix: String, name: String) -> PathStep? {
        guard name != ".", name != "..", !name.contains("/") else { return nil }
        let relative = prefix.isEmpty ? name : prefix + "/" + name
        let absolute = source.absolute(relative)
        if packages.entry(at: absolute)?.isBundle == true { return .bundle(path: absolute) }
        return packages.bundlePaths(under: absolute).isEmpty ? nil : .intermediate(relative: relative)
    }

    /// The names under `by-path/<prefix>`: the next component of every bundle path below it.
    func pathNames(prefix: String) -> [String] {
        let base = source.absolute(prefix)
        var names = Set<String>()
        for path in packages.bundlePaths(under: base) {
            guard let relative = Paths.relative(path, to: base), !relative.isEmpty else { continue }
            names.insert(String(relative.prefix { $0 != "/" }))
        }
        return names.sorted { $0.precedesInByteOrder($1) }
    }

    // MARK: Resources

    enum Resource: Sendable {
        case file(path: String, status: FileStatus)
        case directory(subpath: String)
    }

    /// The item the bundle search pattern picks for `subpath/name`, confined to SOURCE.
    func resource(forView detail: String, subpath: String, name: String) -> Resource? {
        guard let record = record(forView: detail), !name.hasPrefix("._"), name != ".DS_Store",
              let resolver = try? ResourceResolver(record: record, within: source)
        else { return nil }
        let path = subpath.isEmpty ? name : subpath + "/" + name
        guard let resolution = try? resolver.resolve(path, languages: packages.languages),
              let real = try? Paths.resolved(resolution.path), Paths.isWithin(real, source.path),
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
    func resourceNames(forView detail: String, subpath: String) -> [(name: String, resource: Resource)] {
        guard let record = record(forView: detail), let resources = record.resourcesDirectory,
              let bundle = source.relative(record.path)
        else { return [] }
        let base = Paths.join(bundle, resources)
        var directories = [subpath]
        for lproj in record.localizationChooser.lprojSearchOrder(for: packages.languages) {
            directories.append(subpath.isEmpty ? lproj + ".lproj" : lproj + ".lproj/" + subpath)
        }
        var names = Set<ExactName>()
        for directory in directories {
            let relative = Paths.join(base, directory)
            guard let handle = try? source.open(relative.isEmpty ? "." : relative, flags: Descriptor.directoryNoFollowFinal),
                  let entries = try? handle.listDirectoryTyped()
            else { continue }
            for entry in entries {
                if directory.isEmpty && FileNames.isLprojName(entry.name) { continue }
                names.insert(ExactName(entry.name))
            }
        }
        return names.map(\.value).sorted { $0.precedesInByteOrder($1) }.compactMap { name in
            resource(forView: detail, subpath: subpath, name: name).map { (name, $0) }
        }
    }
}
