import BundleModel
import SystemCalls
import Testing
@testable import Watcher

/// The watcher's tree of directories: paths from parents, watches mapped both ways, a rename one
/// re-link of a subtree, and handles that never reach a directory that replaced a removed one.
@Suite struct DirectoryTreeTests {
    func tree(_ paths: FilePath...) -> DirectoryTree {
        let tree = DirectoryTree()
        tree.addRoot("/root")
        for path in paths { _ = tree.node(at: path, create: true) }
        return tree
    }

    @Test func nodesAreMadeWithTheirAncestorsAndFoundByPath() throws {
        let tree = tree("/root/a/b/c")
        #expect(tree.nodeCount == 4)
        let c = try #require(tree.node(at: "/root/a/b/c"))
        #expect(tree.path(of: c) == "/root/a/b/c")
        #expect(tree.name(of: c) == "c")
        #expect(tree.parent(of: c).map(tree.path(of:)) == "/root/a/b")
        #expect(tree.depth(of: c) == 3)
        #expect(tree.node(at: "/root").map(tree.name(of:)) == "/root", "a root's name is its path")
        #expect(tree.node(at: "/root/a/x") == nil, "not made unless asked")
        #expect(tree.nodeCount == 4)
        #expect(tree.node(at: "/elsewhere/a", create: true) == nil, "nothing outside the roots")
        #expect(tree.node(at: "/rootless", create: true) == nil, "a root is a path, not a prefix of bytes")
        #expect(tree.node(at: "/root/a").flatMap { tree.child(of: $0, named: "b") } == tree.node(at: "/root/a/b"))
        #expect(Set(tree.children(of: try #require(tree.node(at: "/root/a/b"))).map(\.name)) == ["c"])
    }

    @Test func namesAreBytes() throws {
        let tree = tree("/root/R\u{E9}sum\u{E9}", "/root/Re\u{301}sume\u{301}")
        #expect(tree.nodeCount == 3, "the NFC and NFD spellings are two directories")
        #expect(tree.children(of: try #require(tree.node(at: "/root"))).count == 2)
    }

    @Test func watchesMapToTheirDirectoriesBothWays() throws {
        let tree = tree("/root/a", "/root/b")
        let a = try #require(tree.node(at: "/root/a")), b = try #require(tree.node(at: "/root/b"))
        tree.setWatch(5, for: a)
        #expect(tree.node(forWatch: 5) == a)
        #expect(tree.watch(of: a) == 5)
        #expect(tree.watchedCount == 1 && tree.unwatchedCount == 2)

        // The kernel gives a directory's new inode's watch a number another directory had.
        tree.setWatch(5, for: b)
        #expect(tree.node(forWatch: 5) == b)
        #expect(tree.watch(of: a) == nil, "a watch covers one directory")
        // A directory's watch re-added under a new number drops the old number.
        tree.setWatch(6, for: b)
        #expect(tree.node(forWatch: 5) == nil)
        #expect(tree.watch(of: b) == 6)
        #expect(tree.watchedCount == 1)

        tree.forgetWatch(6)
        #expect(tree.watch(of: b) == nil && tree.node(forWatch: 6) == nil)
        #expect(tree.watchedCount == 0 && tree.unwatchedCount == 3)
    }

    @Test func removingASubtreeReturnsItsWatchesAndStalesItsHandles() throws {
        let tree = tree("/root/a/b/c", "/root/a/d", "/root/e")
        let a = try #require(tree.node(at: "/root/a")), c = try #require(tree.node(at: "/root/a/b/c"))
        let e = try #require(tree.node(at: "/root/e"))
        tree.setWatch(1, for: a)
        tree.setWatch(3, for: c)
        tree.setWatch(9, for: e)
        #expect(Set(tree.remove(a)) == [1, 3])
        #expect(tree.nodeCount == 2)
        #expect(tree.node(at: "/root/a") == nil && tree.node(at: "/root/a/b/c") == nil)
        #expect(tree.node(forWatch: 3) == nil)
        #expect(tree.node(forWatch: 9) == e)
        #expect(tree.watchedCount == 1 && tree.unwatchedCount == 1)
        #expect(!tree.isAttached(c))
        #expect(tree.watch(of: c) == nil && tree.parent(of: c) == nil)

        // The freed slots are reused; the old handles do not reach the new directories.
        let again = try #require(tree.node(at: "/root/f/g/h/i", create: true))
        #expect(tree.isAttached(again))
        #expect(!tree.isAttached(a) && !tree.isAttached(c))
        #expect(a != tree.node(at: "/root/f"))
        tree[isApplication: a] = true
        #expect(tree.node(at: "/root/f").map { tree[isApplication: $0] } == false, "a stale handle changes nothing")
        #expect(tree.remove(a).isEmpty)
        #expect(tree.nodeCount == 6)
    }

    @Test func aMoveRelinksTheWholeSubtreeAndKeepsItsWatches() throws {
        let tree = tree("/root/old/inner/deep", "/root/dest")
        let old = try #require(tree.node(at: "/root/old")), deep = try #require(tree.node(at: "/root/old/inner/deep"))
        tree.setWatch(4, for: deep)
        let dest = try #require(tree.node(at: "/root/dest"))
        #expect(tree.move(old, to: dest, name: "new").isEmpty)
        #expect(tree.path(of: deep) == "/root/dest/new/inner/deep")
        #expect(tree.node(at: "/root/dest/new/inner/deep") == deep)
        #expect(tree.node(at: "/root/old") == nil && tree.node(at: "/root/old/inner") == nil)
        #expect(tree.node(forWatch: 4).map(tree.path(of:)) == "/root/dest/new/inner/deep", "an event's watch resolves to the new path")
        #expect(tree.nodeCount == 5)
        #expect(tree.children(of: try #require(tree.node(at: "/root"))).map(\.name) == ["dest"])
    }

    @Test func aMoveOverAnotherDirectoryReplacesIt() throws {
        let tree = tree("/root/a/x", "/root/b/y")
        let a = try #require(tree.node(at: "/root/a")), b = try #require(tree.node(at: "/root/b"))
        let y = try #require(tree.node(at: "/root/b/y"))
        tree.setWatch(7, for: b)
        tree.setWatch(8, for: y)
        let root = try #require(tree.node(at: "/root"))
        #expect(Set(tree.move(a, to: root, name: "b")) == [7, 8], "the replaced subtree's watches, to remove")
        #expect(tree.node(at: "/root/b") == a)
        #expect(tree.node(at: "/root/b/x") != nil && tree.node(at: "/root/b/y") == nil)
        #expect(tree.nodeCount == 3)
        #expect(tree.watchedCount == 0)
        // A rename within the same parent, and one onto its own name, leave everything in place.
        #expect(tree.move(a, to: root, name: "c").isEmpty)
        #expect(tree.move(a, to: root, name: "c").isEmpty)
        #expect(tree.node(at: "/root/c/x") != nil && tree.node(at: "/root/b") == nil)
        #expect(tree.children(of: root).map(\.name) == ["c"])
    }

    @Test func bundlesAreFoundAboveANodeWithThePathBelowThem() throws {
        let tree = tree("/root/Apps/Chess.app/Contents/Resources/en.lproj")
        let app = try #require(tree.node(at: "/root/Apps/Chess.app"))
        let lproj = try #require(tree.node(at: "/root/Apps/Chess.app/Contents/Resources/en.lproj"))
        #expect(tree.enclosingBundle(of: lproj, includingItself: true) == nil)
        let structure = BundleStructure(infoFile: "Contents/Info.plist", resourcesDirectory: "Contents/Resources", lowercasedExtension: "app")
        tree[bundle: app] = structure
        tree[isApplication: app] = true
        let found = try #require(tree.enclosingBundle(of: lproj, includingItself: false))
        #expect(found.node == app)
        #expect(found.relative == ["Contents", "Resources", "en.lproj"])
        #expect(tree.enclosingBundle(of: app, includingItself: true)?.relative == [])
        #expect(tree.enclosingBundle(of: app, includingItself: false) == nil)
        #expect(tree[bundle: app] == structure && tree[isApplication: app])
        tree[bundle: app] = nil
        #expect(tree[bundle: app] == nil)
    }

    @Test func aSubtreeIsListedParentsFirst() throws {
        let tree = tree("/root/a/b/c", "/root/a/d", "/root/a/b/e")
        let a = try #require(tree.node(at: "/root/a"))
        let paths = tree.nodes(under: a).map(tree.path(of:))
        #expect(Set(paths) == ["/root/a", "/root/a/b", "/root/a/b/c", "/root/a/b/e", "/root/a/d"])
        for (index, path) in paths.enumerated() where path != "/root/a" {
            #expect(paths[..<index].contains(path.parent), "\(path) after its parent")
        }
    }

    @Test func namesSurviveCompactionAfterManyRenames() throws {
        let tree = tree("/root/keep/inner")
        let keep = try #require(tree.node(at: "/root/keep")), root = try #require(tree.node(at: "/root"))
        let long = String(repeating: "r", count: 240)
        // Each rename frees the old name: more than a megabyte freed makes the arena repack itself.
        for round in 0..<6000 { _ = tree.move(keep, to: root, name: FileName("\(round)-\(long)")) }
        #expect(tree.name(of: keep) == FileName("5999-\(long)"))
        #expect(tree.node(at: FilePath("/root/5999-\(long)/inner")).map(tree.name(of:)) == "inner")
    }

    @Test func removingARootForgetsIt() throws {
        let tree = tree("/root/a")
        tree.addRoot("/other")
        tree.addRoot("/other")
        #expect(tree.roots.count == 2 && tree.nodeCount == 3)
        tree.setWatch(2, for: try #require(tree.node(at: "/root/a")))
        #expect(tree.remove(try #require(tree.node(at: "/root"))) == [2])
        #expect(tree.roots.keys.map(\.string) == ["/other"])
        #expect(tree.node(at: "/root/a") == nil)
        #expect(tree.nodeCount == 1)
    }
}
