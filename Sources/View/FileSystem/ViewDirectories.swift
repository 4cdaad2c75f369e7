import BundleModel
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A directory's entries as they were when it was opened. Offsets are positions in it, so a
/// reader resuming at any offset it was given (the kernel keeps part of a reply, seekdir) sees
/// the same sequence, whatever changed since.
final class DirectorySnapshot: Sendable {
    struct Item: Sendable {
        var name: FileName
        var type: FileType
        /// Never 0: readdir's callers skip entries whose d_ino is 0.
        var inode: UInt64
        /// For real entries: what the listing said, so READDIRPLUS need not stat again.
        var listed: DirectoryListing.Entry?
        var isPackage = false
        /// For by-uuid's and the symbol stores' entries: what the listing found, so READDIRPLUS
        /// need not look again.
        var found: Found?
    }

    enum Found {
        case uuid(String)
        case symbol(SymbolStores.Child)
        /// A by-id entry: the identifier its bundle view is known by.
        case identifier(String)
    }

    let items: [Item]
    /// The real directory it lists (source, raw and bundle-view directories).
    let path: FilePath?
    /// How real children are presented: `.source` in the view, `.raw` in `.bundlefs`.
    let childKind: NodeKind
    /// What answering READDIRPLUS for the entries of a `.bundlefs` directory needs, gathered once.
    let lookups: ListingLookups
    /// A listing from before an update the kernel is being told about: READDIRPLUS gives no
    /// entries from it, which the kernel would keep past the update.
    let isHeld: Bool

    init(items: [Item], path: FilePath?, childKind: NodeKind, lookups: ListingLookups = ListingLookups(), isHeld: Bool = false) {
        self.isHeld = isHeld
        self.items = items
        self.path = path
        self.childKind = childKind
        self.lookups = lookups
    }
}

extension ViewFileSystem {
    /// OPENDIR: snapshots the entries. In the view, entries are display names in byte order of
    /// the real names (hidden ones left out); `.bundlefs` directories list what they resolve.
    func openDirectory(_ id: UInt64) throws(ViewError) -> DirectorySnapshot {
        let directory = try node(id)
        requests.count(.listing)
        switch directory.kind {
        case .source:
            let path = try realPath(id)
            let held = listings.heldListing(path)
            let listing = if let held { held } else { try listing(path, mode: .view) }
            let items = listing.visible.map { entry in
                DirectorySnapshot.Item(name: entry.viewName ?? entry.realName, type: entry.isPackage ? .regular : entry.status.type,
                                       inode: entry.status.inode, listed: entry, isPackage: entry.isPackage)
            }
            return DirectorySnapshot(items: items, path: path, childKind: .source, isHeld: held != nil)
        case .raw:
            let path = try realPath(id)
            return DirectorySnapshot(items: try rawItems(path, excluding: []), path: path, childKind: .raw)
        case .bundleView:
            guard let key = directory.detail.bundleView, let bundle = views.bundlePath(forView: key) else { throw .notFound }
            if views.archive(forView: key) != nil {
                // Inside an archive: its effective Info.plist, from the catalogue; no files to show.
                return DirectorySnapshot(items: [Self.item(BundleViews.infoName, .synthesized(.info, detail: .bundle(key)))], path: nil, childKind: .raw)
            }
            // Listed from the record alone: the icon is converted only when looked up or read.
            let icon = views.hasIcon(key) ? [Self.item(BundleViews.iconName, .synthesized(.icon, detail: .bundle(key)))] : []
            guard views.showsBundle(key) else {
                let reserved = icon.isEmpty ? [] : [BundleViews.iconName]
                return DirectorySnapshot(items: icon + (try rawItems(bundle, excluding: reserved)), path: bundle, childKind: .raw)
            }
            let reserved = [BundleViews.infoName, BundleViews.resourcesName] + (icon.isEmpty ? [] : [BundleViews.iconName])
            let synthesized = [
                Self.item(BundleViews.infoName, .synthesized(.info, detail: .bundle(key))),
                Self.item(BundleViews.resourcesName, .synthesized(.resources, detail: .resources(key, subpath: .here))),
            ] + icon
            return DirectorySnapshot(items: synthesized + (try rawItems(bundle, excluding: reserved)), path: bundle, childKind: .raw)
        case .control:
            let items = [
                Self.item(BundleViews.byID, .synthesized(.byID, detail: .none)),
                Self.item(BundleViews.byPath, .synthesized(.byPath, detail: .pathPrefix(.here))),
                Self.item(UUIDViews.directoryName, .synthesized(.byUUID, detail: .none)),
                Self.item(SymbolStores.directoryName, .synthesized(.symbols, detail: .symbolPath(.top))),
            ]
            return DirectorySnapshot(items: items, path: nil, childKind: .raw)
        case .byID:
            let items = views.listedIdentifiers().map { identifier in
                var item = Self.item(FileName(identifier), .synthesized(.bundleView, detail: .bundle(.identifier(identifier))))
                item.found = .identifier(identifier)
                return item
            }
            return DirectorySnapshot(items: items, path: nil, childKind: .raw)
        case .byPath:
            guard case let .pathPrefix(prefix) = directory.detail else { throw .notFound }
            let items = views.pathNames(prefix: prefix).map { name in
                let relative = prefix.appending(name)
                let absolute = source.absolute(relative)
                return Self.item(name, packages.entry(at: absolute)?.hasView == true
                    ? .synthesized(.bundleView, detail: .bundle(.path(absolute))) : .synthesized(.byPath, detail: .pathPrefix(relative)))
            }
            return DirectorySnapshot(items: items, path: nil, childKind: .raw)
        case .resources:
            guard case let .resources(key, subpath) = directory.detail else { throw .notFound }
            let items = views.resourceNames(forView: key, subpath: subpath).map { name, resource in
                switch resource {
                case let .file(_, status): DirectorySnapshot.Item(name: name, type: .regular, inode: status.inode)
                case let .directory(path): Self.item(name, .synthesized(.resources, detail: .resources(key, subpath: path)))
                }
            }
            return DirectorySnapshot(items: items, path: nil, childKind: .raw)
        case .byUUID:
            let matches = uuids.allMatches()
            // Spellings are ASCII: sorted as strings, they are in byte order.
            let items = matches.compactMap { key, matches in DebugSymbols.spelling(matches).map { ($0, key) } }
                .sorted { $0.0 < $1.0 }
                .map { name, key in
                    var item = Self.item(FileName(name), .synthesized(.uuidView, detail: .uuid(key)))
                    item.found = .uuid(key)
                    return item
                }
            return DirectorySnapshot(items: items, path: nil, childKind: .raw, lookups: ListingLookups(uuidMatches: matches))
        case .uuidView:
            guard case let .uuid(key) = directory.detail else { throw .notFound }
            let files = [UUIDViews.dSYMName, UUIDViews.executableName].compactMap { name in
                uuids.file(named: name, key: key).map { DirectorySnapshot.Item(name: name, type: .regular, inode: $0.status.inode) }
            }
            let info = uuids.infoBytes(key) == nil ? [] : [Self.item(BundleViews.infoName, .synthesized(.uuidInfo, detail: .uuid(key)))]
            return DirectorySnapshot(items: files + info, path: nil, childKind: .raw)
        case .symbols:
            guard case let .symbolPath(path) = directory.detail else { throw .notFound }
            let listing = symbolListing(path)
            let items = listing.children.map { child in
                var item = switch child {
                case let .directory(name, path): Self.item(FileName(name), .synthesized(.symbols, detail: .symbolPath(path)))
                case let .file(name, file, _, _): DirectorySnapshot.Item(name: FileName(name), type: .regular, inode: file.inode)
                }
                item.found = .symbol(child)
                return item
            }
            return DirectorySnapshot(items: items, path: nil, childKind: .raw, lookups: listing.lookups)
        case .package, .info, .icon, .uuidInfo, .symbolFile:
            throw ViewError(code: ENOTDIR)
        }
    }

    /// A synthesized entry, with the inode number its attributes will show.
    static func item(_ name: FileName, _ identity: NodeIdentity) -> DirectorySnapshot.Item {
        let isDirectory: Bool = if case let .synthesized(kind, _) = identity, isSyntheticFile(kind) { false } else { true }
        return DirectorySnapshot.Item(name: name, type: isDirectory ? .directory : .regular, inode: Attributes.syntheticInode(identity))
    }

    private func rawItems(_ path: FilePath, excluding reserved: [FileName]) throws(ViewError) -> [DirectorySnapshot.Item] {
        try listing(path, mode: .raw).entries.compactMap { entry in
            reserved.contains(entry.realName) ? nil
                : DirectorySnapshot.Item(name: entry.realName, type: entry.status.type, inode: entry.status.inode, listed: entry)
        }
    }

    /// The READDIRPLUS entry of one item, counting a lookup; nil for items sent without
    /// attributes (packages, whose size needs a walk of their contents: the kernel looks them up
    /// when it needs them), and for by-uuid's and by-id's entries the kernel already holds.
    ///
    /// Those the kernel keeps for an hour (`ViewTimeouts.listedViews`), and an update makes it
    /// forget the ones it touched (`ViewUpdater`): what it holds is what the daemon would answer.
    /// Sent again, each would cost the daemon a lookup and the statuses of its sources (by-uuid's
    /// access reads an image's bundle and folders), the first `ls -l` after an update 2.5 times a
    /// native one at 30,000 UUIDs; left out, `ls -l` finds them in the kernel's cache.
    func plusEntry(_ item: DirectorySnapshot.Item, in snapshot: DirectorySnapshot, directory id: UInt64) -> EntryAnswer? {
        if item.isPackage || snapshot.isHeld { return nil }
        switch item.found {
        case let .uuid(key)?:
            if nodes.id(of: .synthesized(.uuidView, detail: .uuid(key))) != nil { return nil }
            return synthesized(.uuidView, detail: .uuid(key), parent: id, name: item.name, lookups: snapshot.lookups)
        case let .identifier(identifier)?:
            if nodes.id(of: .synthesized(.bundleView, detail: .bundle(.identifier(identifier)))) != nil { return nil }
            return try? lookUp(item.name, in: id, lookups: snapshot.lookups)
        case let .symbol(child)?:
            return symbolEntry(child, parent: id, lookups: snapshot.lookups)
        case nil:
            break
        }
        guard let listed = item.listed, let path = snapshot.path else { return try? lookUp(item.name, in: id, lookups: snapshot.lookups) }
        let status = listed.status
        if snapshot.childKind == .raw && status.type == .directory && packages.entry(at: path.appending(listed.realName))?.hasView == true {
            return try? lookUp(item.name, in: id)
        }
        let alias = item.name == listed.realName ? nil : item.name
        let (child, generation) = nodes.lookUp(.item(snapshot.childKind, device: status.device, inode: status.inode),
                                               parent: id, name: listed.realName, alias: alias)
        return EntryAnswer(id: child, generation: generation, attributes: Attributes.of(status), timeout: timeout(for: snapshot.childKind))
    }
}
