import BundleModel
import CompactStorage
import SystemCalls

/// The watcher's picture of every directory under its roots: which inotify watch covers it, and
/// which are catalogued bundles (with their structure). Nodes know their parents, so an event's
/// watch resolves to its current path and a rename is one re-link, whatever the subtree's size.
///
/// Stored as one array of small slots (about 48 bytes a directory), names packed in a `NameArena`,
/// children found through a hash index of (parent, name) and listed through sibling links, and
/// bundle structures interned (most bundles share a handful): a tree of 250,000 directories costs
/// about 16 MB, where a class per directory with a dictionary of children cost five times that.
/// Used from one thread (the watcher's) only.
final class DirectoryTree {
    /// A directory of the tree: a handle that stays valid until its subtree is removed (a slot
    /// reused for another directory has another generation). Only an index: what it names is
    /// read and written through the tree (`name(of:)`, `[bundle: node]`, ...).
    struct Node: Hashable, Sendable {
        fileprivate let id: UInt32
        fileprivate let generation: UInt32
    }

    /// Its name in its parent; a root's is its whole path.
    func name(of node: Node) -> FileName { names.name(slot(node)?.name ?? .empty) }
    func parent(of node: Node) -> Node? { slot(node).flatMap { handle($0.parent) } }
    func watch(of node: Node) -> Int32? { slot(node).flatMap { $0.watch < 0 ? nil : $0.watch } }
    func child(of node: Node, named name: FileName) -> Node? { childID(of: node.id, named: name).flatMap(handle) }

    /// The catalogued bundle's structure when this directory is a catalogued bundle or package.
    subscript(bundle node: Node) -> BundleStructure? {
        get { slot(node).flatMap { $0.structure == 0 ? nil : structures[Int($0.structure - 1)] } }
        set {
            guard slot(node) != nil else { return }
            slots[Int(node.id - 1)].structure = newValue.map(intern) ?? 0
        }
    }

    /// A catalogued application (its claims count for everyone, rule 14).
    subscript(isApplication node: Node) -> Bool {
        get { slot(node)?.isApplication ?? false }
        set { update(node) { $0.isApplication = newValue } }
    }

    /// From the last listing of its parent or itself; 0 when not known.
    subscript(inode node: Node) -> UInt64 {
        get { slot(node)?.inode ?? 0 }
        set { update(node) { $0.inode = newValue } }
    }

    private struct Slot {
        var parent: UInt32 = 0
        var firstChild: UInt32 = 0
        var nextSibling: UInt32 = 0
        var previousSibling: UInt32 = 0
        var name = NameArena.Slice.empty
        var inode: UInt64 = 0
        var watch: Int32 = -1
        var generation: UInt32 = 0
        /// 1 + the index of an interned structure; 0 for none.
        var structure: UInt32 = 0
        var isApplication = false
        var live = false
    }

    /// Slot i holds node id i + 1 (0 means none).
    private var slots: [Slot] = []
    private var free: [UInt32] = []
    private var names = NameArena()
    private var childIndex = NodeIndex()
    private var structures: [BundleStructure] = []
    private var structureIDs: [BundleStructure: UInt32] = [:]
    private var byWatch: [Int32: UInt32] = [:]
    private var nextGeneration: UInt32 = 1

    private(set) var roots: [FilePath: Node] = [:]
    private(set) var nodeCount = 0

    /// Room for `count` more directories at once (freed slots are used first): grown by doubling,
    /// the slots' array held its old and new buffers together (24 MB at 255,000 directories, the
    /// watcher's peak).
    func reserveCapacity(adding count: Int) {
        slots.reserveCapacity(slots.count + max(0, count - free.count))
    }

    /// Directories a watch covers (each watch covers one), and the others: derived, so that the
    /// status never counts more directories than the tree has.
    var watchedCount: Int { byWatch.count }
    var unwatchedCount: Int { nodeCount - byWatch.count }

    func addRoot(_ path: FilePath) {
        if roots[path] == nil { roots[path] = handle(create(name: FileName(path.string), parent: 0))! }
    }

    /// The node for a path under a root, created with its missing ancestors when `create`.
    func node(at path: FilePath, create: Bool = false) -> Node? {
        guard let (rootPath, root) = roots.first(where: { path.isWithin($0.key) }) else { return nil }
        guard let relative = path.relative(to: rootPath), !relative.isEmpty else { return root }
        var id = root.id
        for name in relative.components {
            if let child = childID(of: id, named: name) {
                id = child
            } else if create {
                id = self.create(name: name, parent: id)
            } else {
                return nil
            }
        }
        return handle(id)
    }

    func node(forWatch watch: Int32) -> Node? { byWatch[watch].flatMap(handle) }

    /// Whether a node is still part of the tree (not removed with a subtree).
    func isAttached(_ node: Node) -> Bool {
        guard var slot = slot(node) else { return false }
        var id = node.id
        while slot.parent != 0 {
            id = slot.parent
            slot = slots[Int(id - 1)]
        }
        return roots.values.contains { $0.id == id }
    }

    func depth(of node: Node) -> Int {
        var depth = 0
        var current = parent(of: node)
        while let next = current {
            depth += 1
            current = parent(of: next)
        }
        return depth
    }

    /// Records that `watch` covers `node` (a watch re-added for the same inode keeps its number).
    func setWatch(_ watch: Int32, for node: Node) {
        guard slot(node) != nil else { return }
        if let previous = byWatch[watch], previous != node.id { slots[Int(previous - 1)].watch = -1 }
        let old = slots[Int(node.id - 1)].watch
        if old >= 0, old != watch { byWatch[old] = nil }
        slots[Int(node.id - 1)].watch = watch
        byWatch[watch] = node.id
    }

    /// The kernel dropped a watch (its directory is gone, or the watch was removed).
    func forgetWatch(_ watch: Int32) {
        guard let id = byWatch.removeValue(forKey: watch) else { return }
        if slots[Int(id - 1)].watch == watch { slots[Int(id - 1)].watch = -1 }
    }

    /// Removes a subtree; returns the watches it held, for the caller to remove from inotify.
    @discardableResult
    func remove(_ node: Node) -> [Int32] {
        guard let slot = slot(node) else { return [] }
        if slot.parent == 0 {
            roots = roots.filter { $0.value.id != node.id }
        } else {
            unlink(node.id)
        }
        var watches: [Int32] = []
        var pending = [node.id]
        while let id = pending.popLast() {
            let removed = slots[Int(id - 1)]
            var child = removed.firstChild
            while child != 0 {
                pending.append(child)
                child = slots[Int(child - 1)].nextSibling
            }
            if removed.watch >= 0 {
                watches.append(removed.watch)
                byWatch[removed.watch] = nil
            }
            if removed.parent != 0 && id != node.id { childIndex.remove(id, hash: hash(parent: removed.parent, name: removed.name)) }
            names.free(removed.name)
            slots[Int(id - 1)] = Slot(generation: removed.generation)
            free.append(id)
            nodeCount -= 1
        }
        compactNamesIfNeeded()
        return watches
    }

    /// Moves a subtree under a new parent and name; what was at the destination is removed first.
    /// Returns the watches of that replaced subtree.
    func move(_ node: Node, to parent: Node, name: FileName) -> [Int32] {
        guard slot(node) != nil, slot(parent) != nil else { return [] }
        var dropped: [Int32] = []
        if let existing = childID(of: parent.id, named: name), existing != node.id, let handle = handle(existing) { dropped = remove(handle) }
        if slots[Int(node.id - 1)].parent != 0 { unlink(node.id) }
        names.free(slots[Int(node.id - 1)].name)
        slots[Int(node.id - 1)].name = names.store(name)
        link(node.id, under: parent.id)
        compactNamesIfNeeded()
        return dropped
    }

    /// The nearest catalogued bundle at or above a node, and the node's path relative to it.
    func enclosingBundle(of node: Node, includingItself: Bool) -> (node: Node, relative: [FileName])? {
        var relative: [FileName] = []
        var current: Node? = includingItself ? node : parent(of: node)
        if !includingItself { relative.append(name(of: node)) }
        while let candidate = current {
            if self[bundle: candidate] != nil { return (candidate, relative.reversed()) }
            relative.append(name(of: candidate))
            current = parent(of: candidate)
        }
        return nil
    }

    /// Every node of a subtree, parents before children.
    func nodes(under node: Node) -> [Node] {
        guard slot(node) != nil else { return [] }
        var result: [Node] = []
        var pending = [node.id]
        while let id = pending.popLast() {
            result.append(handle(id)!)
            var child = slots[Int(id - 1)].firstChild
            while child != 0 {
                pending.append(child)
                child = slots[Int(child - 1)].nextSibling
            }
        }
        return result
    }

    // MARK: Slots

    private func handle(_ id: UInt32) -> Node? {
        guard id != 0, slots[Int(id - 1)].live else { return nil }
        return Node(id: id, generation: slots[Int(id - 1)].generation)
    }

    private func slot(_ node: Node) -> Slot? {
        guard node.id != 0, Int(node.id) <= slots.count else { return nil }
        let slot = slots[Int(node.id - 1)]
        return slot.live && slot.generation == node.generation ? slot : nil
    }

    private func update(_ node: Node, _ change: (inout Slot) -> Void) {
        guard slot(node) != nil else { return }
        change(&slots[Int(node.id - 1)])
    }

    private func create(name: FileName, parent: UInt32) -> UInt32 {
        var slot = Slot(name: names.store(name), generation: nextGeneration, live: true)
        nextGeneration &+= 1
        slot.parent = 0
        let id: UInt32
        if let reused = free.popLast() {
            id = reused
            slots[Int(id - 1)] = slot
        } else {
            slots.append(slot)
            id = UInt32(slots.count)
        }
        nodeCount += 1
        if parent != 0 { link(id, under: parent) }
        return id
    }

    /// Puts a node first among its parent's children and in the index.
    private func link(_ id: UInt32, under parent: UInt32) {
        let first = slots[Int(parent - 1)].firstChild
        slots[Int(id - 1)].parent = parent
        slots[Int(id - 1)].previousSibling = 0
        slots[Int(id - 1)].nextSibling = first
        if first != 0 { slots[Int(first - 1)].previousSibling = id }
        slots[Int(parent - 1)].firstChild = id
        childIndex.insert(id, hash: hash(parent: parent, name: slots[Int(id - 1)].name)) { [self] other in
            hash(parent: slots[Int(other - 1)].parent, name: slots[Int(other - 1)].name)
        }
    }

    /// Takes a node out of its parent's children and the index (its own subtree stays).
    private func unlink(_ id: UInt32) {
        let slot = slots[Int(id - 1)]
        childIndex.remove(id, hash: hash(parent: slot.parent, name: slot.name))
        if slot.previousSibling != 0 {
            slots[Int(slot.previousSibling - 1)].nextSibling = slot.nextSibling
        } else {
            slots[Int(slot.parent - 1)].firstChild = slot.nextSibling
        }
        if slot.nextSibling != 0 { slots[Int(slot.nextSibling - 1)].previousSibling = slot.previousSibling }
        slots[Int(id - 1)].parent = 0
        slots[Int(id - 1)].previousSibling = 0
        slots[Int(id - 1)].nextSibling = 0
    }

    private func childID(of parent: UInt32, named name: FileName) -> UInt32? {
        var string = name.string
        let hash = string.withUTF8 { NameArena.childHash(parent: parent, name: UnsafeRawBufferPointer($0)) }
        return childIndex.find(hash: hash) { [self] id in
            let slot = slots[Int(id - 1)]
            return slot.parent == parent && names.equals(slot.name, name)
        }
    }

    /// The children with their names (made on each call).
    func children(of node: Node) -> [(name: FileName, node: Node)] {
        guard let slot = slot(node) else { return [] }
        var result: [(name: FileName, node: Node)] = []
        var child = slot.firstChild
        while child != 0 {
            result.append((names.name(slots[Int(child - 1)].name), handle(child)!))
            child = slots[Int(child - 1)].nextSibling
        }
        return result
    }

    func path(of node: Node) -> FilePath {
        var components: [NameArena.Slice] = []
        var id = node.id
        while id != 0 {
            let slot = slots[Int(id - 1)]
            guard slot.live else { break }
            components.append(slot.name)
            id = slot.parent
        }
        return names.path(innermostFirst: components)
    }

    private func hash(parent: UInt32, name: NameArena.Slice) -> Int { names.childHash(parent: parent, name) }

    /// The one copy of a structure that many bundles share.
    private func intern(_ structure: BundleStructure) -> UInt32 {
        if let id = structureIDs[structure] { return id }
        structures.append(structure)
        let id = UInt32(structures.count)
        structureIDs[structure] = id
        return id
    }

    /// Names freed by removals and renames are reclaimed once they outweigh the live ones.
    private func compactNamesIfNeeded() {
        if names.needsCompaction { names.compact(&slots, name: \.name, isLive: \.live) }
    }
}
