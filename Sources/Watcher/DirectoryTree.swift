import BundleModel
import SystemCalls

/// The watcher's picture of every directory under its roots: which inotify watch covers it, and
/// which are catalogued bundles (with their structure). Nodes point to their parents, so an event's
/// watch resolves to its current path and a rename is one re-link, whatever the subtree's size.
/// Used from one thread (the watcher's) only.
final class DirectoryTree {
    final class Node {
        /// Its name in its parent; a root's is its whole path.
        var name: FileName
        weak var parent: Node?
        var children: [FileName: Node] = [:]
        var watch: Int32?
        /// The catalogued bundle's structure when this directory is a catalogued bundle or package.
        var bundle: BundleStructure?
        /// A catalogued application (its claims count for everyone, rule 14).
        var isApplication = false
        /// From the last listing of its parent or itself; 0 when not known.
        var inode: UInt64 = 0

        init(name: FileName, parent: Node?) {
            self.name = name
            self.parent = parent
        }

        var path: FilePath {
            guard let parent else { return FilePath(name) }
            return parent.path.appending(name)
        }
    }

    private(set) var roots: [FilePath: Node] = [:]
    private var byWatch: [Int32: Node] = [:]
    private(set) var nodeCount = 0

    /// Directories a watch covers (each watch covers one), and the others: derived, so that the
    /// status never counts more directories than the tree has.
    var watchedCount: Int { byWatch.count }
    var unwatchedCount: Int { nodeCount - byWatch.count }

    func addRoot(_ path: FilePath) {
        if roots[path] == nil {
            roots[path] = Node(name: FileName(path.string), parent: nil)
            nodeCount += 1
        }
    }

    /// The node for a path under a root, created with its missing ancestors when `create`.
    func node(at path: FilePath, create: Bool = false) -> Node? {
        guard let (rootPath, root) = roots.first(where: { path.isWithin($0.key) }) else { return nil }
        var node = root
        guard let relative = path.relative(to: rootPath), !relative.isEmpty else { return root }
        for name in relative.components {
            if let child = node.children[name] {
                node = child
            } else if create {
                let child = Node(name: name, parent: node)
                node.children[name] = child
                nodeCount += 1
                node = child
            } else {
                return nil
            }
        }
        return node
    }

    func node(forWatch watch: Int32) -> Node? { byWatch[watch] }

    /// Whether a node is still part of the tree (not removed with a subtree).
    func isAttached(_ node: Node) -> Bool {
        var current = node
        while let parent = current.parent { current = parent }
        return roots[FilePath(current.name)] === current
    }

    static func depth(_ node: Node) -> Int {
        var depth = 0
        var current = node
        while let parent = current.parent { depth += 1; current = parent }
        return depth
    }

    /// Records that `watch` covers `node` (a watch re-added for the same inode keeps its number).
    func setWatch(_ watch: Int32, for node: Node) {
        if let previous = byWatch[watch], previous !== node { previous.watch = nil }
        if let old = node.watch, old != watch { byWatch[old] = nil }
        node.watch = watch
        byWatch[watch] = node
    }

    /// The kernel dropped a watch (its directory is gone, or the watch was removed).
    func forgetWatch(_ watch: Int32) {
        guard let node = byWatch.removeValue(forKey: watch) else { return }
        if node.watch == watch { node.watch = nil }
    }

    /// Removes a subtree; returns the watches it held, for the caller to remove from inotify.
    @discardableResult
    func remove(_ node: Node) -> [Int32] {
        var watches: [Int32] = []
        var pending = [node]
        while let next = pending.popLast() {
            if let watch = next.watch {
                watches.append(watch)
                byWatch[watch] = nil
            }
            nodeCount -= 1
            pending += next.children.values
        }
        if let parent = node.parent {
            parent.children[node.name] = nil
            node.parent = nil
        } else if roots[FilePath(node.name)] === node {
            roots[FilePath(node.name)] = nil
        }
        return watches
    }

    /// Moves a subtree under a new parent and name; what was at the destination is removed first.
    /// Returns the watches of that replaced subtree.
    func move(_ node: Node, to parent: Node, name: FileName) -> [Int32] {
        var dropped: [Int32] = []
        if let existing = parent.children[name], existing !== node { dropped = remove(existing) }
        node.parent?.children[node.name] = nil
        node.name = name
        node.parent = parent
        parent.children[name] = node
        return dropped
    }

    /// The nearest catalogued bundle at or above a node, and the node's path relative to it.
    func enclosingBundle(of node: Node, includingItself: Bool) -> (node: Node, relative: [FileName])? {
        var relative: [FileName] = []
        var current: Node? = includingItself ? node : node.parent
        if !includingItself { relative.append(node.name) }
        while let candidate = current {
            if candidate.bundle != nil { return (candidate, relative.reversed()) }
            relative.append(candidate.name)
            current = candidate.parent
        }
        return nil
    }

    /// Every node of a subtree, parents before children.
    func nodes(under node: Node) -> [Node] {
        var result: [Node] = []
        var pending = [node]
        while let next = pending.popLast() {
            result.append(next)
            pending += next.children.values
        }
        return result
    }
}
