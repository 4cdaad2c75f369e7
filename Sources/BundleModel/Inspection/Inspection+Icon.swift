import SystemCalls

/// Finding the icon file during inspection (rule 21): a path only, mostly from the resources
/// listing inspection already made. Nothing is opened or read for a macOS or GNUstep icon (the
/// view decodes it when `Icon.png` is read, and `show` checks it), so indexing costs what it did.
extension Inspection {
    func findIcon(bundle: FilePath, resources: Listing?, into record: inout BundleRecord) {
        guard let request = IconRules.request(record.infoDictionary, layout: record.layout) else { return }
        switch request {
        case let .assetCatalog(name):
            record.warnings.append("the icon \"\(name)\" (CFBundleIconName) is in Assets.car, which bundlefs does not decode")
        case let .resource(key, names):
            for name in names {
                if let found = resolveResource(name, bundle: bundle, record: record, resources: resources) {
                    record.icon = record.key.appending(found)
                    return
                }
            }
            record.warnings.append("\(key) names \"\(names.last ?? "")\", which is not among the bundle's resources")
        case let .iOSImages(names):
            findLargestImage(names, bundle: bundle, resources: resources, into: &record)
        }
    }

    /// Each document type's CFBundleTypeIconFile, found as CFBundleIconFile is.
    func findDocumentIcons(bundle: FilePath, resources: Listing?, into record: inout BundleRecord) {
        for index in record.documentTypes.indices {
            guard let file = record.documentTypes[index].iconFile else { continue }
            let names = FileName(file).lowercasedExtension == nil ? [file + ".icns", file] : [file]
            for name in names {
                guard let found = resolveResource(name, bundle: bundle, record: record, resources: resources) else { continue }
                record.documentTypes[index].iconPath = record.key.appending(found)
                break
            }
        }
    }

    /// The bundle search pattern for the development region (an icon does not depend on the
    /// user's languages in practice): the first regular file, relative to the bundle. A plain
    /// file at the global level is seen in the resources listing without a system call.
    private func resolveResource(_ name: String, bundle: FilePath, record: BundleRecord, resources listing: Listing?) -> FilePath? {
        guard let components = try? ResourceResolver.validate(name) else { return nil }
        let relative = components.reduce(FilePath.here) { $0.appending($1) }
        if components.count == 1, listing?.entries[components[0]] == .file, let resources = record.resourcesDirectory {
            return resources.appending(relative)
        }
        return record.searchLevels(for: []).lazy.map { $0.directory.appending(relative) }
            .first { root.status(bundle.appending($0))?.type == .regular }
    }

    /// iOS: every variant of every name in the resources directory; the one with the most pixels.
    private func findLargestImage(_ names: [String], bundle: FilePath, resources listing: Listing?, into record: inout BundleRecord) {
        guard let resources = record.resourcesDirectory, let listing else { return }
        var best: (file: FilePath, pixels: UInt64)?
        for name in listing.entries.keys.sorted() where names.contains(where: { IconRules.isVariant(name, of: $0) }) {
            let file = resources.appending(name)
            guard let header = try? root.readPrefix(bundle.appending(file), count: 24), let size = PNGHeader.size(header) else {
                record.warnings.append("icon \(file) is not a PNG; skipped")
                continue
            }
            let pixels = UInt64(size.width) * UInt64(size.height)
            if pixels > best?.pixels ?? 0 { best = (file, pixels) }
        }
        if let best {
            record.icon = record.key.appending(best.file)
        } else if names != ["Icon.png"] {
            record.warnings.append("none of the icon files \(names.joined(separator: ", ")) is among the bundle's resources")
        }
    }
}
