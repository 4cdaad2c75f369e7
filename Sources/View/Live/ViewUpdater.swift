import BundleModel
import Catalogue
import Synchronization
import SystemCalls

/// Keeps the view current from the catalogue's updates (SPEC.md: "a change under SOURCE shows in
/// the view within a second"). On the caller's thread it reads again from the catalogue the
/// bundles an update names, refreshes the package index and drops cached listings, records and
/// tar layouts, so the next request reads the tree again; then, on its own thread, it tells the
/// kernel which cached entries, attributes and pages to drop.
final class ViewUpdater: Sendable {
    let fileSystem: ViewFileSystem
    let catalogue: any CatalogueReader
    private let worker = SerialWorker()
    private let session = Mutex<FuseSession?>(nil)

    init(fileSystem: ViewFileSystem, catalogue: any CatalogueReader) {
        self.fileSystem = fileSystem
        self.catalogue = catalogue
    }

    /// Loads every catalogued bundle: at start, and after a rescan that wrote past the updates.
    func loadPackages() throws {
        // Whole records are read a chunk at a time to keep a small entry of each.
        var entries: [PackageIndex.Entry] = []
        try catalogue.forEachBundleChunk { chunk in entries += chunk.map { fileSystem.packages.entry(for: $0.record) } }
        fileSystem.packages.load(entries: entries)
        fileSystem.records.removeAll()
        Memory.returnFreePages()
    }

    func start(session: FuseSession) throws(SystemError) {
        try worker.start()
        self.session.withLock { $0 = session }
        fileSystem.retireNode.withLock { $0 = { [worker, self] id in worker.enqueue { self.retire(id) } } }
    }

    func stop() {
        fileSystem.retireNode.withLock { $0 = nil }
        worker.stop()
        session.withLock { $0 = nil }
    }

    /// Waits until the kernel has been told about every update applied so far.
    func drain() { worker.drain() }

    /// Applies one update, in the order they come (the watcher's thread calls it after each
    /// turn's transactions committed, so what the catalogue holds now includes what it names).
    func apply(_ update: CatalogueUpdate) throws {
        let fs = fileSystem
        fs.defaultApplications.invalidate()
        if update.reloaded {
            fs.uuids.invalidate()
            fs.symbols.invalidate()
            try loadPackages()
            fs.listings.removeAll()
            fs.layouts.removeAll()
            worker.enqueue { [self] in notifyEverything() }
            return
        }
        var changed = CatalogueUpdate()
        changed.directories = update.directories
        // The bundles touched, as they were and as they are: what `.bundlefs` shows differently.
        // (One pass over the package index for all of an update's renames, and one for its removals.)
        var synthetic = SyntheticChanges(root: fs.source.path)
        synthetic.add(fs.packages.entries(withinAny: Set(update.renames.map(\.from))))
        for rename in update.renames {
            fs.packages.renameSubtree(from: rename.from, to: rename.to)
            for path in [rename.from, rename.to] {
                fs.records.invalidate(subtree: path)
                fs.listings.invalidate(subtree: path)
                fs.layouts.invalidate(touching: path)
                changed.touchItem(path)
            }
        }
        synthetic.add(fs.packages.entries(withinAny: Set(update.renames.map(\.to))))
        synthetic.add(fs.packages.entries(withinAny: Set(update.removals)))
        for path in update.removals {
            fs.packages.removeSubtree(path)
            fs.records.invalidate(subtree: path)
            fs.listings.invalidate(subtree: path)
            fs.layouts.invalidate(touching: path)
            changed.touchItem(path)
        }
        for directory in update.archiveDirectories {
            // Its archives' bundles as the catalogue has them now: read again, or gone.
            let current = try catalogue.bundles(matching: BundleQuery(under: directory, inArchives: true)).filter { $0.record.archive?.parent == directory }
            synthetic.add(fs.packages.archived(inDirectory: directory))
            fs.packages.replaceArchived(in: directory, with: current.map { fs.packages.entry(for: $0.record) })
            synthetic.add(fs.packages.archived(inDirectory: directory))
            fs.records.invalidate(subtree: directory)
        }
        let paths = update.bundles.sorted()
        // What a turn read but could not write (a fault) comes with the update; the rest is read
        // from the catalogue.
        let written = paths.filter { update.unwritten[$0] == nil }
        var current = Dictionary(try catalogue.bundles(atPaths: written).map { ($0.record.key, $0.record) }, uniquingKeysWith: { $1 })
        for (path, record) in update.unwritten { current[path] = record }
        for path in paths {
            let before = fs.packages.entry(at: path)
            fs.packages.set(path, to: current[path])
            synthetic.add(before)
            synthetic.add(fs.packages.entry(at: path))
            fs.records.invalidate(path)
            if case let .some(.some(record)) = update.unwritten[path] { fs.records.store(record) }
            if before.map({ !$0.presentsLike(fs.packages.entry(at: path)) }) ?? true { changed.touchItem(path) }
        }
        // by-uuid and the symbol stores read again only the UUIDs of the bundles touched.
        fs.uuids.invalidate(keys: synthetic.uuidKeys)
        fs.symbols.invalidate(keys: synthetic.uuidKeys)
        let touched = changed.directories
        // Once the kernel may have been given listings, READDIR keeps the old one until the
        // notifier has told the kernel the directory's names (`notify` releases it).
        let holds = session.withLock { $0 != nil }
        for directory in touched.keys {
            if holds { fs.listings.hold(directory) } else { fs.listings.invalidate(directory) }
            fs.layouts.invalidate(touching: directory)
        }
        guard !touched.isEmpty || !paths.isEmpty || !update.archiveDirectories.isEmpty else { return }
        worker.enqueue { [self, synthetic] in
            notify(touched, releasing: holds)
            var synthetic = synthetic
            synthetic.add(bundles(around: touched))
            notifySynthesized(synthetic)
        }
    }

    /// The `.bundlefs` directories (by-id, by-path, bundle views, resolved resources, by-uuid, the
    /// symbol stores) and their files are made from the catalogue and the bundles' files: the
    /// kernel keeps their listings (`no_opendir`) and pages (`no_open`) itself, so those of the
    /// nodes an update changed are dropped (all of them with nil: after a reload). Only nodes
    /// someone looked at are known to the kernel, found without a pass over the real ones.
    private func notifySynthesized(_ changes: SyntheticChanges? = nil) {
        guard let session = session.withLock({ $0 }) else { return }
        let ids = changes.map { changes in fileSystem.nodes.synthesizedIDs(where: changes.affects) } ?? fileSystem.nodes.synthesizedIDs()
        for id in ids { _ = session.invalidateInode(id) }
    }

    /// The bundles whose views may show a change in these directories: those around a directory
    /// (their contents and resolved resources), and those beneath an entry that is a directory now
    /// (created, moved in, or its mode changed, which changes what their views grant), or beneath
    /// the whole directory when which entries changed is not known.
    private func bundles(around touched: [FilePath: Set<FileName>?]) -> [PackageIndex.Entry] {
        let fs = fileSystem
        var result: [PackageIndex.Entry] = []
        var subtrees = Set<FilePath>()
        for (directory, names) in touched {
            result += ancestors(of: directory).compactMap { fs.packages.entry(at: $0) }
            guard let names else {
                subtrees.insert(directory)
                continue
            }
            for name in names where (try? FileStatus.of(directory.appending(name)))?.type == .directory {
                subtrees.insert(directory.appending(name))
            }
        }
        return result + fs.packages.entries(withinAny: subtrees)
    }

    /// A package node serves one layout for as long as the kernel keeps it (its pages stay
    /// consistent): when the package changes, the kernel drops the names that lead to the node, so
    /// that the next open looks it up again and gets a new node.
    private func retire(_ id: UInt64) {
        guard let session = session.withLock({ $0 }) else { return }
        for (parent, name) in fileSystem.nodes.entries(of: id) { _ = session.invalidateEntry(parent, name) }
    }

    /// Tells the kernel what changed in these directories: their attributes and cached entries,
    /// every name that may now mean something else (the names events gave, display names old and
    /// new), the changed children's attributes and pages, and the packages around them.
    private func notify(_ touched: [FilePath: Set<FileName>?], releasing held: Bool = false) {
        let fs = fileSystem
        guard let session = session.withLock({ $0 }) else {
            if held { for directory in touched.keys { fs.listings.release(directory) } }
            return
        }
        var packagesAround = Set<FilePath>()
        for (directory, names) in touched {
            for ancestor in ancestors(of: directory) where fs.packages.entry(at: ancestor)?.isPackage == true {
                packagesAround.insert(ancestor)
            }
            guard let status = try? FileStatus.of(directory), status.type == .directory,
                  let id = fs.nodes.id(of: .source, device: status.device, inode: status.inode)
            else {
                if held { fs.listings.release(directory) }
                continue
            }
            var invalid = names ?? []
            invalid.formUnion(fs.nodes.aliases(under: id))
            if let listing = try? fs.listing(directory, mode: .view) {
                invalid.formUnion(listing.renamedNames)
                if names == nil {
                    for entry in listing.entries {
                        invalid.insert(entry.realName)
                        if let viewName = entry.viewName { invalid.insert(viewName) }
                    }
                }
            }
            if names == nil { invalid.formUnion(fs.nodes.childNames(of: [id])[id] ?? []) }
            for name in invalid { _ = session.invalidateEntry(id, name) }
            // Only now may READDIR give the new listing, and the kernel is told to drop any it
            // kept (forgetting a name already did, unless it had none to forget).
            if held { fs.listings.release(directory) }
            _ = session.invalidateInode(id)
            // The same directory seen by its real names inside a bundle view.
            if let rawID = fs.nodes.id(of: .raw, device: status.device, inode: status.inode) { _ = session.invalidateInode(rawID) }
            for name in names ?? [] {
                guard let child = try? FileStatus.of(directory.appending(name)) else { continue }
                // A file's pages and attributes, by its presented and its real name.
                for kind in [NodeKind.source, .raw] {
                    if let childID = fs.nodes.id(of: kind, device: child.device, inode: child.inode) { _ = session.invalidateInode(childID) }
                }
                if let packageID = fs.nodes.id(of: .package, device: child.device, inode: child.inode) { retire(packageID) }
            }
        }
        for package in packagesAround {
            guard let status = try? FileStatus.of(package),
                  let id = fs.nodes.id(of: .package, device: status.device, inode: status.inode)
            else { continue }
            retire(id)
        }
    }

    /// After a full rescan: every directory the kernel knows is treated as changed.
    private func notifyEverything() {
        let fs = fileSystem
        var touched: [FilePath: Set<FileName>?] = [:]
        for id in fs.nodes.ids(of: .source) {
            guard let path = fs.nodes.path(of: id), (try? FileStatus.of(path))?.type == .directory else { continue }
            touched[path] = .some(nil)
        }
        notify(touched)
        notifySynthesized()
        for id in fs.nodes.ids(of: .package) { retire(id) }
    }

    /// The directories from `path` up to the source root.
    private func ancestors(of path: FilePath) -> [FilePath] {
        var result: [FilePath] = []
        var current = path
        while current.isWithin(fileSystem.source.path) {
            result.append(current)
            if current == fileSystem.source.path { break }
            current = current.parent
        }
        return result
    }
}
