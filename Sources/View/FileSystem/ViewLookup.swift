import BundleModel
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A LOOKUP answer: a node with its attributes, or (id 0) a negative entry the kernel caches.
struct EntryAnswer {
    var id: UInt64
    var generation: UInt64
    var attributes: stat
    var timeout: Double

    static func negative(timeout: Double) -> EntryAnswer { EntryAnswer(id: 0, generation: 0, attributes: stat(), timeout: timeout) }
}

extension ViewFileSystem {
    /// LOOKUP: a name in a directory of the view. In a source directory the listed name wins,
    /// then the real name (hidden items and packages' real directories stay reachable for code),
    /// then, at the root, `.bundlefs`. Each answer counts one lookup of the node it names.
    /// `lookups` are what a listing gathered for its entries (READDIRPLUS).
    func lookUp(_ name: FileName, in parent: UInt64, lookups: ListingLookups = ListingLookups()) throws(ViewError) -> EntryAnswer {
        guard !name.isDotOrDotDot, !name.isEmpty, !name.string.utf8.contains(UInt8(ascii: "/")) else { throw .notFound }
        let directory = try node(parent)
        switch directory.kind {
        case .source:
            return try lookUpInSource(name, parent: parent)
        case .raw:
            return try lookUpRaw(name, parent: parent, base: try realPath(parent))
        case .bundleView:
            guard let key = directory.detail.bundleView, let bundle = views.bundlePath(forView: key) else { throw .notFound }
            if name == BundleViews.infoName, views.showsBundle(key) {
                return synthesized(.info, detail: .bundle(key), parent: parent, name: name)
            }
            if views.archive(forView: key) != nil { return .negative(timeout: timeouts.synthesized) }
            if name == BundleViews.resourcesName, views.showsBundle(key) {
                return synthesized(.resources, detail: .resources(key, subpath: .here), parent: parent, name: name)
            }
            if name == BundleViews.iconName, views.hasIcon(key) {
                guard syntheticBytes(.icon, detail: .bundle(key)) != nil else { return .negative(timeout: timeouts.synthesized) }
                return synthesized(.icon, detail: .bundle(key), parent: parent, name: name)
            }
            return try lookUpRaw(name, parent: parent, base: bundle)
        case .control:
            switch name {
            case BundleViews.byID: return synthesized(.byID, detail: .none, parent: parent, name: name)
            case BundleViews.byPath: return synthesized(.byPath, detail: .pathPrefix(.here), parent: parent, name: name)
            case UUIDViews.directoryName: return synthesized(.byUUID, detail: .none, parent: parent, name: name)
            case SymbolStores.directoryName: return synthesized(.symbols, detail: .symbolPath(.top), parent: parent, name: name)
            default: return .negative(timeout: timeouts.synthesized)
            }
        case .byID:
            guard views.isListedIdentifier(name), let path = views.bundlePath(forView: .identifier(name.string))
            else { return .negative(timeout: timeouts.synthesized) }
            return bundleView(.identifier(name.string), path: path, lookups: lookups)
        case .byPath:
            guard case let .pathPrefix(prefix) = directory.detail else { return .negative(timeout: timeouts.synthesized) }
            switch views.pathStep(prefix: prefix, name: name) {
            case let .bundle(path)?: return bundleView(.path(path), path: path)
            case let .intermediate(relative)?: return synthesized(.byPath, detail: .pathPrefix(relative), parent: parent, name: name)
            case nil: return .negative(timeout: timeouts.synthesized)
            }
        case .resources:
            guard case let .resources(key, subpath) = directory.detail else { return .negative(timeout: timeouts.synthesized) }
            switch views.resource(forView: key, subpath: subpath, name: name) {
            case let .file(path, status)?:
                let (id, generation) = nodes.lookUp(.item(.raw, device: status.device, inode: status.inode), parent: 0, name: FileName(path.string))
                return EntryAnswer(id: id, generation: generation, attributes: Attributes.of(status), timeout: timeouts.synthesized)
            case let .directory(path)?:
                return synthesized(.resources, detail: .resources(key, subpath: path), parent: parent, name: name)
            case nil:
                return .negative(timeout: timeouts.synthesized)
            }
        case .byUUID:
            guard let key = uuids.key(forName: name, known: lookups.uuidMatches) else { return .negative(timeout: timeouts.synthesized) }
            return synthesized(.uuidView, detail: .uuid(key), parent: parent, name: name, lookups: lookups)
        case .uuidView:
            guard case let .uuid(key) = directory.detail else { return .negative(timeout: timeouts.synthesized) }
            if name == BundleViews.infoName {
                guard uuids.infoBytes(key) != nil else { return .negative(timeout: timeouts.synthesized) }
                return synthesized(.uuidInfo, detail: .uuid(key), parent: parent, name: name)
            }
            guard let (path, status) = uuids.file(named: name, key: key) else { return .negative(timeout: timeouts.synthesized) }
            let (id, generation) = nodes.lookUp(.item(.raw, device: status.device, inode: status.inode), parent: 0, name: FileName(path.string))
            return EntryAnswer(id: id, generation: generation, attributes: Attributes.of(status), timeout: timeouts.synthesized)
        case .symbols:
            guard case let .symbolPath(path) = directory.detail else { return .negative(timeout: timeouts.synthesized) }
            return lookUpSymbol(name, in: path, parent: parent)
        case .package, .info, .icon, .uuidInfo, .symbolFile:
            throw ViewError(code: ENOTDIR)
        }
    }

    private func lookUpInSource(_ name: FileName, parent: UInt64) throws(ViewError) -> EntryAnswer {
        if parent == NodeTable.rootID && name == BundleViews.directoryName {
            return synthesized(.control, detail: .none, parent: parent, name: name)
        }
        let path = try realPath(parent)
        var listing = try listing(path, mode: .view)
        var found = Self.find(name, in: listing)
        if found == nil && isStale(listing, path: path) {
            listing = try self.listing(path, mode: .view, fresh: true)
            found = Self.find(name, in: listing)
        }
        guard let (entry, asPackage) = found else { return .negative(timeout: timeouts.real) }
        let childPath = path.appending(entry.realName)
        if asPackage {
            let (attributes, content) = try packageAttributes(childPath)
            let (id, generation) = nodes.lookUp(.item(.package, device: UInt64(attributes.st_dev), inode: UInt64(attributes.st_ino)),
                                                parent: parent, name: entry.realName, alias: name, version: content)
            return EntryAnswer(id: id, generation: generation, attributes: attributes, timeout: timeouts.real)
        }
        // Fresh attributes: the listing may be a moment older than the file.
        guard let status = try? FileStatus.of(childPath) else {
            listings.invalidate(path)
            return .negative(timeout: 0)
        }
        let (id, generation) = nodes.lookUp(.item(.source, device: status.device, inode: status.inode),
                                            parent: parent, name: entry.realName, alias: name)
        return EntryAnswer(id: id, generation: generation, attributes: Attributes.of(status), timeout: timeouts.real)
    }

    /// The entry a name reaches in a presented directory, and whether it is the package file.
    static func find(_ name: FileName, in listing: DirectoryListing) -> (DirectoryListing.Entry, Bool)? {
        if let entry = listing.entry(viewName: name) { return (entry, entry.isPackage) }
        if let entry = listing.entry(realName: name) { return (entry, false) }
        return nil
    }

    /// A name in a raw directory: the real item, or the view of a catalogued bundle.
    private func lookUpRaw(_ name: FileName, parent: UInt64, base: FilePath) throws(ViewError) -> EntryAnswer {
        let path = base.appending(name)
        guard let status = try? FileStatus.of(path) else { return .negative(timeout: timeouts.synthesized) }
        if status.type == .directory, packages.entry(at: path)?.hasView == true {
            return bundleView(.path(path), path: path)
        }
        let (id, generation) = nodes.lookUp(.item(.raw, device: status.device, inode: status.inode), parent: parent, name: name)
        return EntryAnswer(id: id, generation: generation, attributes: Attributes.of(status), timeout: timeouts.synthesized)
    }

    /// A bundle view's node carries its bundle's absolute path as its name, so that raw contents
    /// beneath it find their real paths.
    private func bundleView(_ key: BundleViewKey, path: FilePath, lookups: ListingLookups = ListingLookups()) -> EntryAnswer {
        let (id, generation) = nodes.lookUp(.synthesized(.bundleView, detail: .bundle(key)), parent: 0, name: FileName(path.string))
        let attributes = synthesizedAttributes(.bundleView, detail: .bundle(key), size: 0, lookups: lookups)
        return EntryAnswer(id: id, generation: generation, attributes: attributes, timeout: timeout(for: .bundleView))
    }

    func synthesized(_ kind: NodeKind, detail: SyntheticDetail, parent: UInt64, name: FileName,
                             lookups: ListingLookups = ListingLookups()) -> EntryAnswer {
        let (id, generation) = nodes.lookUp(.synthesized(kind, detail: detail), parent: parent, name: name)
        let size = Self.isSyntheticFile(kind) ? syntheticBytes(kind, detail: detail)?.count ?? 0 : 0
        let attributes = synthesizedAttributes(kind, detail: detail, size: size, lookups: lookups)
        return EntryAnswer(id: id, generation: generation, attributes: attributes, timeout: timeout(for: kind))
    }
}
