import BundleModel
import Catalogue
import Indexer
import Records
import Scanner
import Synchronization
import SystemCalls

/// Collects a scan's events in memory, to be written with the rest of a batch.
final class CollectingSink: ScanSink, Sendable {
    private let collected = Mutex<[ScanEvent]>([])
    var events: [ScanEvent] { collected.withLock { $0 } }
    func receive(_ events: [ScanEvent]) { collected.withLock { $0 += events } }
}

extension Watcher {
    var scanOptions: ScanOptions {
        var options = options
        options.settings.claimed = claimed
        options.watchDirectory = installer.hook
        return options
    }

    /// Indexes every root incrementally with watches added before each listing, then rebuilds the
    /// tree from the catalogue and checks every bundle's files once more (a file edited between
    /// its check and the watch on its directory would otherwise go unseen).
    func rescanAll(reason: String?) throws {
        do {
            try rescanRoots(reason: reason)
        } catch {
            forgetFailedRescanRegistrations()
            throw error
        }
    }

    /// A rescan that failed (a fault) may have stopped before the tree was rebuilt, yet it watched
    /// what it listed. Directories the tree knows keep their watches; the others lose them and
    /// stay unknown, so that the batch that meets them scans them as new (a node made from a
    /// registration alone would look read already, and its bundles would never be found).
    func forgetFailedRescanRegistrations() {
        var unheld: [Int32] = []
        for (path, watch) in installer.drain() {
            guard let watch else { continue }
            if let node = tree.node(at: path) { tree.setWatch(watch, for: node) } else { unheld.append(watch) }
        }
        installer.remove(unheld.filter { tree.node(forWatch: $0) == nil })
        installer.settle { tree.node(forWatch: $0) != nil }
    }

    private func rescanRoots(reason: String?) throws {
        let started = Self.now()
        // What the book knew is from before whatever made this rescan (events lost, a fault):
        // each index recomputes claims whole, and its book and claims replace the watcher's.
        claimBook = nil
        status.state = reason == nil ? .starting : .rescanning
        writeStatus()
        for root in roots {
            let summary = try Indexer(catalogue: catalogue, options: scanOptions).index(root: root, progress: progress)
            claimed = summary.claimed
            claimBook = summary.claimBook
            try rebuildTree(root: root)
            try verifyBundles(root: root)
        }
        // The index wrote straight to the catalogue: whoever presents it reloads (the first
        // time, it loads once the watcher is ready).
        pendingUpdate = CatalogueUpdate()
        pendingUpdate.reloaded = reason != nil
        lastRescanFinishedAt = Self.now()
        // A rescan's transient tables (the known tree and the scan's results) and SQLite's page
        // caches are freed between long-lived tree nodes allocated meanwhile: hand the free pages
        // back, or the daemon keeps its peak as resident memory for good.
        catalogue.releaseMemory()
        Memory.returnFreePages()
        if reason != nil {
            status.rescans += 1
            status.state = .watching
            logger.warning("rescanned in \(Self.seconds(lastRescanFinishedAt - started)) s")
            reportUnwatched()
        }
        nextUnwatchedRescanAt = Self.now() + settings.rescanInterval
        writeStatus()
    }

    /// Makes the tree for a root match the catalogue: its directories, their inodes, which are
    /// bundles, and the watches registered during the last scan (or held from before). Watches on
    /// directories no longer in the tree (moved out while events were lost) are removed. The
    /// catalogue's rows are read one at a time, never all held at once.
    func rebuildTree(root: FilePath) throws {
        var previousWatches: [FilePath: Int32] = [:]
        var dropped: [Int32] = []
        if let old = tree.roots[root] {
            for node in tree.nodes(under: old) {
                if let watch = tree.watch(of: node) { previousWatches[tree.path(of: node)] = watch }
            }
            dropped = tree.remove(old)
        }
        tree.addRoot(root)
        tree.reserveCapacity(adding: try catalogue.directoryCount(under: root))
        var kept = Set<Int32>()
        try catalogue.forEachDirectory(under: root) { path, inode in
            guard let node = tree.node(at: path, create: true) else { return }
            tree[inode: node] = inode
            if let watch = previousWatches[path] {
                tree.setWatch(watch, for: node)
                kept.insert(watch)
            }
        }
        previousWatches = [:]
        // What this scan registered wins over what was held before (for directories the catalogue
        // has: the tree now holds those and their ancestors).
        for (path, watch) in installer.drain() {
            guard let watch, let node = tree.node(at: path) else { continue }
            tree.setWatch(watch, for: node)
            kept.insert(watch)
        }
        try catalogue.forEachBundleStructure(under: root) { path, structure in
            if let node = tree.node(at: path) { tree[bundle: node] = structure }
        }
        installer.remove(dropped.filter { !kept.contains($0) })
        installer.settle { tree.node(forWatch: $0) != nil }
    }

    /// Re-reads, with a shallow scan that checks their stamps, every catalogued bundle under a root,
    /// a chunk of bundles at a time (what the catalogue knows of each chunk, its scan and its writes
    /// are held only while that chunk is checked).
    func verifyBundles(root: FilePath) throws {
        guard let rootNode = tree.roots[root], let scanRoot = scanRoots[root] else { return }
        let bundles = tree.nodes(under: rootNode).filter { tree[bundle: $0] != nil }
        var options = scanOptions
        options.shallow = true
        options.watchDirectory = nil
        var chunkStart = 0
        while chunkStart < bundles.count {
            let chunk = bundles[chunkStart..<min(bundles.count, chunkStart + Self.verifyChunk)]
            chunkStart += chunk.count
            let starts = chunk.filter { tree.isAttached($0) }.map(start(for:))
            let scanner = TreeScanner(root: scanRoot, known: try catalogue.knownTree(ofBundles: starts.map(\.path)), options: options)
            let sink = CollectingSink()
            _ = scanner.scan(from: starts, into: sink)
            try write(BatchChanges(events: sink.events))
        }
    }

    static let verifyChunk = 2_000

    /// Where a scan of this directory starts: the bundle around it, whether it is part of that
    /// bundle's structure, whether an AppleDouble file sits beside it.
    func start(for node: DirectoryTree.Node) -> ScanStart {
        let path = tree.path(of: node)
        var start = ScanStart(path: path, inode: tree[inode: node])
        if let parent = tree.parent(of: node) {
            start.hasSidecar = (try? FileStatus.of(tree.path(of: parent).appending(tree.name(of: node).prefixed("._")))) != nil
        }
        if let (bundle, relative) = tree.enclosingBundle(of: node, includingItself: false), let structure = tree[bundle: bundle] {
            start.enclosingBundle = tree.path(of: bundle)
            var current = structure
            var structural = false
            for component in relative {
                (structural, current) = current.descending(into: component)
            }
            start.isStructural = structural
            start.structure = current
        }
        return start
    }

    /// Scans directories (deep, or only themselves) with watches, into a batch.
    func scan(_ starts: [ScanStart], root: FilePath, shallow: Bool, known: KnownTree = KnownTree()) -> (events: [ScanEvent], result: ScanResult) {
        guard let scanRoot = scanRoots[root], !starts.isEmpty else { return ([], ScanResult()) }
        var options = scanOptions
        options.shallow = shallow
        if shallow || starts.count == 1 { options.threads = min(options.threads, max(1, starts.count)) }
        let sink = CollectingSink()
        let result = TreeScanner(root: scanRoot, known: known, options: options).scan(from: starts, into: sink)
        return (sink.events, result)
    }

    /// Gives the tree the watches a scan registered, creating nodes for new directories, and
    /// takes back the watches of listings that no directory of the tree holds.
    func absorbRegistrations() {
        for (path, watch) in installer.drain() {
            guard let node = tree.node(at: path, create: true) else { continue }
            if let watch { tree.setWatch(watch, for: node) }
        }
        installer.settle { tree.node(forWatch: $0) != nil }
    }

    /// The directories that could not be watched (and the bundles around them, whose files are
    /// checked through their stamps) are scanned shallowly against the catalogue: unchanged ones
    /// cost a stat, changed ones are reconciled like a directory an event named. Each counts as a
    /// rescan in the status.
    func rescanUnwatched() throws {
        status.rescans += 1
        for root in roots {
            guard let rootNode = tree.roots[root] else { continue }
            var nodes: [DirectoryTree.Node] = []
            var seen = Set<DirectoryTree.Node>()
            for node in tree.nodes(under: rootNode) where tree.watch(of: node) == nil {
                for candidate in [node, tree.enclosingBundle(of: node, includingItself: false)?.node].compactMap({ $0 })
                where seen.insert(candidate).inserted {
                    nodes.append(candidate)
                }
            }
            guard !nodes.isEmpty else { continue }
            let known = try catalogue.knownTree(under: root)
            var changes = BatchChanges()
            try reconcile(nodes, root: root, known: known, into: &changes)
            // No events name what changed: every directory the rescan re-listed may have.
            for event in changes.events {
                if case let .directory(row) = event { pendingUpdate.touch(row.path, name: nil) }
            }
            for path in changes.removals { pendingUpdate.touchItem(path) }
            try write(changes)
        }
        reportUnwatched()
    }
}
