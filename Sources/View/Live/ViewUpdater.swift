import Catalogue
import Scanner
import Synchronization
import SystemCalls
import Watcher

/// Keeps the view current from the watcher's updates (SPEC.md: "a change under SOURCE shows in
/// the view within a second"). On the watcher's thread it updates the package index and drops
/// cached listings and tar layouts, so the next request reads the tree again; then, on its own
/// thread, it tells the kernel which cached entries, attributes and pages to drop.
final class ViewUpdater: Sendable {
    let fileSystem: ViewFileSystem
    let catalogue: Catalogue
    private let worker = SerialWorker()
    private let session = Mutex<FuseSession?>(nil)

    init(fileSystem: ViewFileSystem, catalogue: Catalogue) {
        self.fileSystem = fileSystem
        self.catalogue = catalogue
    }

    /// Loads every catalogued bundle: at start, and after a rescan that wrote past the watcher.
    func loadPackages() throws {
        fileSystem.packages.load(try catalogue.bundles(matching: BundleQuery()))
    }

    func start(session: FuseSession) {
        self.session.withLock { $0 = session }
        worker.start()
    }

    func stop() {
        worker.stop()
        session.withLock { $0 = nil }
    }

    /// Waits until the kernel has been told about every update applied so far.
    func drain() { worker.drain() }

    func apply(_ update: WatchUpdate) {
        let fs = fileSystem
        if update.reloaded {
            try? loadPackages()
            fs.listings.removeAll()
            fs.layouts.removeAll()
            worker.enqueue { [self] in notifyEverything() }
            return
        }
        var changed = WatchUpdate()
        changed.directories = update.directories
        func touchItem(_ path: String) { changed.touch(Paths.parent(path), name: Paths.lastComponent(path)) }
        for rename in update.renames {
            fs.packages.renameSubtree(from: rename.from, to: rename.to)
            for path in [rename.from, rename.to] {
                fs.listings.invalidate(subtree: path)
                fs.layouts.invalidate(touching: path)
                touchItem(path)
            }
        }
        for path in update.removals {
            fs.packages.removeSubtree(path)
            fs.listings.invalidate(subtree: path)
            fs.layouts.invalidate(touching: path)
            touchItem(path)
        }
        for event in update.events {
            switch event {
            case let .bundle(record):
                let before = fs.packages.entry(at: record.path)
                fs.packages.update(record)
                let after = fs.packages.entry(at: record.path)
                if before.map({ !$0.presentsLike(after) }) ?? true { touchItem(record.path) }
            case let .bundleRemoved(path):
                fs.packages.remove(path)
                touchItem(path)
            case .directory:
                continue
            }
        }
        let touched = changed.directories
        for directory in touched.keys {
            fs.listings.invalidate(directory)
            fs.layouts.invalidate(touching: directory)
        }
        guard !touched.isEmpty else { return }
        worker.enqueue { [self] in notify(touched) }
    }

    /// Tells the kernel what changed in these directories: their attributes and cached entries,
    /// every name that may now mean something else (the names events gave, display names old and
    /// new), the changed children's attributes and pages, and the packages around them.
    private func notify(_ touched: [String: Set<String>?]) {
        guard let session = session.withLock({ $0 }) else { return }
        let fs = fileSystem
        var packagesAround = Set<String>()
        for (directory, names) in touched {
            for ancestor in ancestors(of: directory) where fs.packages.entry(at: ancestor)?.isPackage == true {
                packagesAround.insert(ancestor)
            }
            guard let status = try? FileStatus.of(directory), status.type == .directory,
                  let id = fs.nodes.id(of: .source, device: status.device, inode: status.inode)
            else { continue }
            _ = session.invalidateInode(id)
            var invalid = Set((names ?? []).map(ExactName.init))
            invalid.formUnion(fs.nodes.aliases(under: id).map(ExactName.init))
            if let listing = try? fs.listing(directory, mode: .view) {
                invalid.formUnion(listing.renamedNames.map(ExactName.init))
                if names == nil {
                    for entry in listing.entries {
                        invalid.insert(ExactName(entry.realName))
                        if let viewName = entry.viewName { invalid.insert(ExactName(viewName)) }
                    }
                }
            }
            if names == nil { invalid.formUnion((fs.nodes.childNames(of: [id])[id] ?? []).map(ExactName.init)) }
            for name in invalid { _ = session.invalidateEntry(id, name.value) }
            for name in names ?? [] {
                guard let child = try? FileStatus.of(Paths.join(directory, name)) else { continue }
                for kind in [NodeKind.source, .package] {
                    if let childID = fs.nodes.id(of: kind, device: child.device, inode: child.inode) { _ = session.invalidateInode(childID) }
                }
            }
        }
        for package in packagesAround {
            guard let status = try? FileStatus.of(package),
                  let id = fs.nodes.id(of: .package, device: status.device, inode: status.inode)
            else { continue }
            _ = session.invalidateInode(id)
        }
    }

    /// After a full rescan: every directory the kernel knows is treated as changed.
    private func notifyEverything() {
        let fs = fileSystem
        var touched: [String: Set<String>?] = [:]
        for id in fs.nodes.ids(of: .source) {
            guard let path = fs.nodes.path(of: id), (try? FileStatus.of(path))?.type == .directory else { continue }
            touched[path] = .some(nil)
        }
        notify(touched)
        guard let session = session.withLock({ $0 }) else { return }
        for id in fs.nodes.ids(of: .package) { _ = session.invalidateInode(id) }
    }

    /// The directories from `path` up to the source root.
    private func ancestors(of path: String) -> [String] {
        var result: [String] = []
        var current = path
        while Paths.isWithin(current, fileSystem.source.path) {
            result.append(current)
            if current == fileSystem.source.path { break }
            current = Paths.parent(current)
        }
        return result
    }
}

extension PackageIndex.Entry {
    /// Whether the view would list it the same way.
    func presentsLike(_ other: PackageIndex.Entry?) -> Bool {
        guard let other else { return false }
        return isPackage == other.isPackage && isBundle == other.isBundle && displayName == other.displayName
            && finderFlags == other.finderFlags && identifier == other.identifier && version == other.version && kind == other.kind
    }
}
