import BundleModel
import Catalogue
import Indexer
import Records
import Scanner
import SystemCalls

/// Everything one batch changes, written in one transaction: subtree renames first (one UPDATE per
/// table each), then removals, then the scans' events.
struct BatchChanges {
    var renames: [(from: FilePath, to: FilePath)] = []
    var removals: [FilePath] = []
    var events: [ScanEvent] = []
    /// An application appeared, changed or went: claims must be recomputed.
    var applicationsTouched = false
}

extension Watcher {
    /// Turns a batch of events into the directories to re-read, re-reads them, writes the result
    /// (or, `writing` false, only tells the view: see `stage`).
    func process(_ events: [InotifyEvent], writing: Bool = true) throws {
        var marked: [DirectoryTree.Node] = []
        var markedIDs = Set<DirectoryTree.Node>()
        func mark(_ node: DirectoryTree.Node) {
            if markedIDs.insert(node).inserted { marked.append(node) }
        }
        var changes = BatchChanges()
        var moves: [UInt32: (parent: DirectoryTree.Node, name: FileName)] = [:]
        var forgotten: [Int32] = []
        for event in events {
            if event.mask.contains(.queueOverflow) {
                // Events were lost: a rescan will read the truth; what is queued until then is moot.
                overflowed()
                return
            }
            if event.mask.contains(.ignored) {
                tree.forgetWatch(event.watch)
                forgotten.append(event.watch)
                continue
            }
            guard let node = tree.node(forWatch: event.watch), tree.isAttached(node) else { continue }
            guard let name = event.name else {
                // About the directory itself: only its attributes (Finder info) matter here; its
                // deletion or move is reported to its parent too.
                if event.mask.contains(.attrib) {
                    mark(node)
                    if let parent = tree.parent(of: node) { pendingUpdate.touch(tree.path(of: parent), name: tree.name(of: node)) }
                }
                continue
            }
            pendingUpdate.touch(tree.path(of: node), name: name)
            // A file written in a backup's bands: the backup is read again when its property
            // lists change, not for each band (rule 34, `BundleStructure.inert`).
            if !event.mask.contains(.isDirectory), let around = tree.enclosingBundle(of: node, includingItself: false),
               tree[bundle: around.node]?.inert.contains(around.relative) == true { continue }
            // Nor for its `lock` and `token`: only the files its record is read from count.
            if !event.mask.contains(.isDirectory), let files = tree[bundle: node]?.significantFiles, !files.contains(name) { continue }
            mark(node)
            if name.hasPrefix("._"), let sibling = tree.child(of: node, named: name.dropping(prefixBytes: 2)) { mark(sibling) }
            if event.mask.contains([.attrib, .isDirectory]), let child = tree.child(of: node, named: name) { mark(child) }
            if event.mask.contains([.movedFrom, .isDirectory]) {
                moves[event.cookie] = (node, name)
            } else if event.mask.contains([.movedTo, .isDirectory]),
                      let from = moves.removeValue(forKey: event.cookie), let moved = tree.child(of: from.parent, named: from.name) {
                // A rename within the tree: re-link the subtree and move its rows, instead of
                // forgetting and rescanning it. Its own name may change what it is: re-read it.
                let fromPath = tree.path(of: moved)
                installer.remove(tree.move(moved, to: node, name: name))
                changes.renames.append((fromPath, tree.path(of: moved)))
                mark(from.parent)
                mark(moved)
            }
        }
        // An unpaired IN_MOVED_FROM moved a directory out of the tree: its parent, marked above,
        // no longer lists it. An unpaired IN_MOVED_TO moved one in: its new parent lists it.
        installer.forget(forgotten)
        for root in roots {
            let nodes = marked.filter { tree.isAttached($0) && tree.path(of: $0).isWithin(root) }
            if !nodes.isEmpty { try reconcile(nodes, root: root, known: KnownTree(), into: &changes) }
        }
        if writing { try write(changes) } else { stage(changes) }
        status.batches += 1
        status.lastBatchAt = Self.wallTime()
        reportUnwatched()
        // Caught up: say so now rather than at the next periodic write, so whoever waits on the
        // status row (a script, a test) sees it promptly.
        if reader.pending == 0 && Self.now() - lastStatusWrite > 0.1 { writeStatus() }
    }

    /// Re-lists directories and makes the catalogue and the tree agree with them: their own rows
    /// and bundle records, subdirectories that appeared (scanned whole, watched first) or went
    /// (removed whole), and the bundles around them, whose records may depend on what changed.
    func reconcile(_ nodes: [DirectoryTree.Node], root: FilePath, known: KnownTree, into changes: inout BatchChanges) throws {
        let nodes = nodes.sorted { tree.depth(of: $0) < tree.depth(of: $1) }
        let (events, result) = scan(nodes.map(start(for:)), root: root, shallow: true, known: known)
        absorbRegistrations()
        changes.events += events
        var rows: [FilePath: DirectoryRow] = [:]
        var records: [FilePath: BundleRecord] = [:]
        for event in events {
            switch event {
            case let .directory(row): rows[row.path] = row
            case let .bundle(record): records[record.key] = record
            case .bundleRemoved, .archive, .archivesListed: break
            }
        }
        let childStarts = Dictionary(grouping: result.childStarts) { $0.path.parent }
        var newStarts: [ScanStart] = []
        var enclosing: [DirectoryTree.Node] = []
        for node in nodes where tree.isAttached(node) {
            let path = tree.path(of: node)
            if let row = rows[path] {
                if tree[inode: node] != 0 && row.inode != tree[inode: node] && tree.parent(of: node) != nil {
                    // Replaced by another directory of the same name: forget the old one whole.
                    let start = start(for: node)
                    removeSubtree(node, into: &changes)
                    newStarts.append(start)
                    continue
                }
                tree[inode: node] = row.inode
                // A directory whose catalogued bundle no longer reads as one (it still exists).
                if tree[bundle: node] != nil && records[path] == nil && !start(for: node).isStructural {
                    changes.events.append(.bundleRemoved(path: path))
                    changes.applicationsTouched = changes.applicationsTouched || tree[isApplication: node]
                }
            }
            guard rows[path] != nil || known.directory(at: path) != nil else { continue } // gone: its parent settles it
            let onDisk = Dictionary((childStarts[path] ?? []).map { ($0.path.lastComponent, $0) }, uniquingKeysWith: { $1 })
            for (name, child) in tree.children(of: node) {
                if let start = onDisk[name] {
                    if start.inode != 0 && tree[inode: child] != 0 && start.inode != tree[inode: child] {
                        removeSubtree(child, into: &changes)
                        newStarts.append(start)
                    }
                } else {
                    removeSubtree(child, into: &changes)
                }
            }
            for (name, start) in onDisk where tree.child(of: node, named: name) == nil && !newStarts.contains(where: { $0.path == start.path }) {
                newStarts.append(start)
            }
            if let around = tree.enclosingBundle(of: node, includingItself: false)?.node { enclosing.append(around) }
        }
        if !newStarts.isEmpty {
            // New subtrees: whatever was catalogued there is replaced by what a scan finds.
            changes.removals += newStarts.map(\.path)
            let (events, _) = scan(newStarts, root: root, shallow: false)
            absorbRegistrations()
            changes.events += events
        }
        // The bundles around the changed directories: their records may depend on what changed
        // (an InfoPlist.strings edited, an lproj added). Re-read those not re-read already.
        let reread = Set(changes.events.compactMap { if case let .bundle(record) = $0 { record.key } else { nil } })
        var seen = Set<DirectoryTree.Node>()
        let around = enclosing.filter { tree.isAttached($0) && !reread.contains(tree.path(of: $0)) && seen.insert($0).inserted }
        if !around.isEmpty {
            let (events, _) = scan(around.map(start(for:)), root: root, shallow: true)
            absorbRegistrations()
            changes.events += events.filter { if case .directory = $0 { false } else { true } }
            let found = Set(events.compactMap { if case let .bundle(record) = $0 { record.key } else { nil } })
            for node in around {
                let path = tree.path(of: node)
                guard !found.contains(path) && (try? FileStatus.of(path)) != nil else { continue }
                changes.events.append(.bundleRemoved(path: path))
                changes.applicationsTouched = changes.applicationsTouched || tree[isApplication: node]
            }
        }
    }

    func removeSubtree(_ node: DirectoryTree.Node, into changes: inout BatchChanges) {
        changes.removals.append(tree.path(of: node))
        if tree.nodes(under: node).contains(where: { tree[isApplication: $0] }) { changes.applicationsTouched = true }
        installer.remove(tree.remove(node))
    }

    /// Writes a batch in one transaction, keeps the tree's bundle marks in step, and recomputes
    /// claims when an application changed. A batch the catalogue refuses (the fault that starts
    /// here) is staged for the view before the error goes on: the tree has already moved on, so
    /// nothing else would tell the view what it found.
    func write(_ changes: BatchChanges) throws {
        guard !changes.renames.isEmpty || !changes.removals.isEmpty || !changes.events.isEmpty else { return }
        let archiveDirectories: Set<FilePath>
        do {
            archiveDirectories = try catalogue.transaction(scannedAt: Self.wallTime()) { writer in
                for rename in changes.renames { try writer.renameSubtree(from: rename.from, to: rename.to) }
                for path in changes.removals { try writer.removeSubtree(path) }
                for event in changes.events { try writer.apply(event) }
                return writer.archivesChanged.directories
            }
        } catch {
            stage(changes)
            throw error
        }
        pendingUpdate.archiveDirectories.formUnion(archiveDirectories)
        pendingUpdate.renames += changes.renames
        pendingUpdate.removals += changes.removals
        pendingUpdate.bundles.formUnion(changes.events.compactMap(\.bundlePath))
        var applicationsTouched = changes.applicationsTouched
        absorb(changes.events, applicationsTouched: &applicationsTouched)
        guard let root = roots.first, let scanRoot = scanRoots[root] else { return }
        let indexer = Indexer(catalogue: catalogue, options: scanOptions)
        let reconciliation: Indexer.ClaimsReconciliation?
        if var book = claimBook {
            let (sources, rewritten) = claimSources(changes, in: book)
            reconciliation = try indexer.reconcileClaims(&book, updating: sources, rewritten: rewritten, previouslyClaimed: claimed, rootHint: scanRoot)
            claimBook = book
        } else if applicationsTouched {
            reconciliation = try indexer.reconcileClaims(previouslyClaimed: claimed, rootHint: scanRoot, book: &claimBook)
        } else {
            reconciliation = nil
        }
        guard let reconciliation else { return }
        claimed = reconciliation.claimed
        pendingUpdate.bundles.formUnion(reconciliation.changes.compactMap(\.bundlePath))
        var ignored = false
        absorb(reconciliation.changes, applicationsTouched: &ignored)
    }

    /// What a written batch changed in what bundles bring to rule 14, in the order the catalogue
    /// took it: renames, removals, then records (nil: gone, or bringing nothing). `rewritten`: the
    /// bundles whose rows the batch deleted and wrote again (their stored claims went with them).
    func claimSources(_ changes: BatchChanges, in book: PackageClaimBook) -> (sources: [FilePath: ClaimResolver.Application?], rewritten: Set<FilePath>) {
        var sources: [FilePath: ClaimResolver.Application?] = [:]
        var deleted = Set<FilePath>()
        func current(_ path: FilePath) -> ClaimResolver.Application? { sources[path] ?? book.source(at: path) }
        func within(_ path: FilePath) -> [FilePath] { book.sources(under: path) + sources.keys.filter { $0.isWithin(path) } }
        func remove(_ path: FilePath) {
            sources[path] = .some(nil)
            deleted.insert(path)
        }
        for rename in changes.renames {
            // What the destination held is replaced; what the source held moves there (its rows
            // move with it, ids and claims kept).
            let moved = Set(within(rename.from)).compactMap { path in current(path).map { (path, $0) } }
            for path in within(rename.to) { remove(path) }
            for (path, _) in moved { sources[path] = .some(nil) }
            for (path, source) in moved {
                guard let destination = path.moved(from: rename.from, to: rename.to) else { continue }
                var renamed = source
                renamed.path = destination
                // Its document types' icons moved with it (rule 21's claimed-document icon).
                for index in renamed.documentTypes.indices {
                    renamed.documentTypes[index].iconPath = renamed.documentTypes[index].iconPath.map { $0.moved(from: rename.from, to: rename.to) ?? $0 }
                }
                sources[destination] = renamed
                deleted.remove(destination)
            }
        }
        for removal in changes.removals {
            for path in within(removal) { remove(path) }
        }
        for event in changes.events {
            switch event {
            case let .bundle(record):
                // A bundle inside an archive is not installed: it brings nothing (rule 26).
                sources[record.key] = .some(record.archive == nil
                    ? ClaimResolver.Application(path: record.key, documentTypes: record.documentTypes, typeDeclarations: record.typeDeclarations)
                    : nil)
            case let .bundleRemoved(path): remove(path)
            case .directory, .archive, .archivesListed: break
            }
        }
        return (sources, deleted.filter { (sources[$0] ?? nil) != nil })
    }

    /// A batch the catalogue cannot take now (a fault): the view is told what it found, records
    /// included, and the tree keeps its marks, so later events inside a new bundle know it. The
    /// catalogue gets it all from the rescan that ends the fault; claims are recomputed then too.
    func stage(_ changes: BatchChanges) {
        pendingUpdate.renames += changes.renames
        pendingUpdate.removals += changes.removals
        for event in changes.events {
            switch event {
            case let .bundle(record):
                pendingUpdate.bundles.insert(record.key)
                pendingUpdate.unwritten[record.key] = .some(record)
            case let .bundleRemoved(path):
                pendingUpdate.bundles.insert(path)
                pendingUpdate.unwritten[path] = .some(nil)
            case .directory, .archive, .archivesListed:
                break
            }
        }
        var ignored = false
        absorb(changes.events, applicationsTouched: &ignored)
    }

    /// Marks in the tree what written events say about bundles and directories.
    func absorb(_ events: [ScanEvent], applicationsTouched: inout Bool) {
        for event in events {
            switch event {
            case let .bundle(record):
                guard let node = tree.node(at: record.key) else { continue }
                if record.isApplication || tree[isApplication: node] { applicationsTouched = true }
                tree[bundle: node] = BundleStructure(record: record)
                tree[isApplication: node] = record.isApplication
            case let .bundleRemoved(path):
                guard let node = tree.node(at: path) else { continue }
                if tree[isApplication: node] { applicationsTouched = true }
                tree[bundle: node] = nil
                tree[isApplication: node] = false
            case let .directory(row):
                if let node = tree.node(at: row.path) { tree[inode: node] = row.inode }
            case .archive, .archivesListed:
                break
            }
        }
    }
}
