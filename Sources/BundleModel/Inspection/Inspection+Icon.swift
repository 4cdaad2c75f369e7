import SystemCalls

/// Finding the icon file during inspection (rule 21): a path only. Images are decoded by the view,
/// when its `Icon.png` is read, so indexing stays as fast as before.
extension Inspection {
    func findIcon(bundle: FilePath, into record: inout BundleRecord) {
        guard let request = IconRules.request(record.infoDictionary, layout: record.layout) else { return }
        switch request {
        case let .assetCatalog(name):
            record.warnings.append("the icon \"\(name)\" (CFBundleIconName) is in Assets.car, which bundlefs does not decode")
        case let .resource(key, names):
            for name in names {
                if let found = resolveResource(name, bundle: bundle, record: record) {
                    setIcon(found, bundle: bundle, into: &record)
                    return
                }
            }
            record.warnings.append("\(key) names \"\(names.last ?? "")\", which is not among the bundle's resources")
        case let .iOSImages(names):
            findLargestImage(names, bundle: bundle, into: &record)
        }
    }

    /// Each document type's CFBundleTypeIconFile, found as CFBundleIconFile is.
    func findDocumentIcons(bundle: FilePath, into record: inout BundleRecord) {
        for index in record.documentTypes.indices {
            guard let file = record.documentTypes[index].iconFile else { continue }
            let names = FileName(file).lowercasedExtension == nil ? [file + ".icns", file] : [file]
            for name in names {
                guard let found = resolveResource(name, bundle: bundle, record: record) else { continue }
                record.documentTypes[index].iconPath = record.path.appending(found)
                break
            }
        }
    }

    /// The bundle search pattern for the development region (an icon does not depend on the
    /// user's languages in practice): the first regular file, relative to the bundle.
    private func resolveResource(_ name: String, bundle: FilePath, record: BundleRecord) -> FilePath? {
        guard let components = try? ResourceResolver.validate(name) else { return nil }
        let relative = components.reduce(FilePath.here) { $0.appending($1) }
        let levels = [FilePath.here] + record.localizationChooser.lprojSearchOrder(for: []).map { FilePath(FileName($0 + ".lproj")) }
        for resources in record.resourceSearchDirectories {
            for level in levels {
                let candidate = resources.appending(level).appending(relative)
                if root.status(bundle.appending(candidate))?.type == .regular { return candidate }
            }
        }
        return nil
    }

    /// iOS: every variant of every name in the resources directory; the one with the most pixels.
    private func findLargestImage(_ names: [String], bundle: FilePath, into record: inout BundleRecord) {
        guard let resources = record.resourcesDirectory, let (entries, _) = root.list(bundle.appending(resources), recorder: recorder) else { return }
        var best: (file: FilePath, pixels: UInt64)?
        for entry in entries.sorted(by: { $0.name < $1.name }) where names.contains(where: { IconRules.isVariant(entry.name, of: $0) }) {
            let file = resources.appending(entry.name)
            guard let header = try? root.readPrefix(bundle.appending(file), count: 24), let size = PNGHeader.size(header) else {
                record.warnings.append("icon \(file) is not a PNG; skipped")
                continue
            }
            let pixels = UInt64(size.width) * UInt64(size.height)
            if pixels > best?.pixels ?? 0 { best = (file, pixels) }
        }
        if let best {
            setIcon(best.file, bundle: bundle, into: &record)
        } else if names != ["Icon.png"] {
            record.warnings.append("none of the icon files \(names.joined(separator: ", ")) is among the bundle's resources")
        }
    }

    /// Records the icon, after a look at its first bytes: one that cannot be an icon is still
    /// recorded (the Finder would try it too), with a warning; decoding is left to the view.
    private func setIcon(_ relative: FilePath, bundle: FilePath, into record: inout BundleRecord) {
        record.icon = record.path.appending(relative)
        if let status = root.status(bundle.appending(relative)) {
            record.stamps.append(FileStamp(path: relative, changeTime: status.changeTime, size: status.size, inode: status.inode))
        }
        do {
            let prefix = try root.readPrefix(bundle.appending(relative), count: IconFileFormat.prefixLength)
            if IconFileFormat(prefix: prefix) == nil { record.warnings.append("icon \(relative) is not an .icns, TIFF or PNG file") }
        } catch {
            record.warnings.append("icon \(relative) could not be read: \(error)")
        }
    }
}
