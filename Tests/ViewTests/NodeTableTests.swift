import SystemCalls
import Testing
@testable import View

/// The node table's contract with the kernel (FUSE's lookup counts): a node lives while the kernel
/// may know it, one thing is one node, and an id is never handed out again while its old meaning
/// may still be in use.
@Suite struct NodeTableTests {
    let table = NodeTable(rootPath: "/source", device: 7, inode: 2)

    func file(_ inode: UInt64, device: UInt64 = 7) -> NodeIdentity { .item(.source, device: device, inode: inode) }

    @Test func theRootIsIdOneAndIsNeverForgotten() throws {
        let root = try #require(table.node(NodeTable.rootID))
        #expect(root.kind == .source && root.inode == 2 && root.device == 7)
        #expect(table.path(of: NodeTable.rootID) == "/source")
        #expect(!table.forget(NodeTable.rootID, count: 100))
        #expect(table.node(NodeTable.rootID) != nil)
        #expect(table.lookUp(file(2), parent: 0, name: "ignored").id == NodeTable.rootID)
        #expect(table.count == 1)
    }

    @Test func lookupsAreCountedAndTheNodeLivesUntilTheKernelForgetsThemAll() throws {
        let first = table.lookUp(file(10), parent: NodeTable.rootID, name: "a.txt")
        let again = table.lookUp(file(10), parent: NodeTable.rootID, name: "a.txt")
        #expect(first == again, "one item is one node")
        #expect(table.node(first.id)?.lookups == 2)
        #expect(table.count == 2)

        #expect(!table.forget(first.id, count: 1))
        #expect(table.node(first.id)?.lookups == 1)
        #expect(table.id(of: file(10)) == first.id)
        #expect(table.forget(first.id, count: 1))
        #expect(table.node(first.id) == nil, "a forgotten id answers nothing (ESTALE)")
        #expect(table.id(of: file(10)) == nil)
        #expect(table.path(of: first.id) == nil)
        #expect(table.count == 1)
        #expect(!table.forget(first.id, count: 1), "a second forget of a gone node changes nothing")
    }

    @Test func aBatchForgetOfMoreThanTheCountStillForgetsOnce() {
        let node = table.lookUp(file(10), parent: NodeTable.rootID, name: "a")
        _ = table.lookUp(file(10), parent: NodeTable.rootID, name: "a")
        #expect(table.forget(node.id, count: 5))
        #expect(table.node(node.id) == nil)
    }

    @Test func anIdIsReusedOnlyAfterItIsForgottenAndThenWithAnotherGeneration() throws {
        let known = table.lookUp(file(10), parent: NodeTable.rootID, name: "known")
        let dropped = table.lookUp(file(11), parent: NodeTable.rootID, name: "dropped")
        #expect(table.forget(dropped.id, count: 1))
        let next = table.lookUp(file(12), parent: NodeTable.rootID, name: "next")
        #expect(next.id != known.id, "an id the kernel still holds is never handed out")
        #expect(next.id == dropped.id, "a forgotten slot is reused")
        #expect(next.generation != dropped.generation, "the pair (id, generation) is new")
        #expect(table.node(next.id)?.inode == 12)
        #expect(table.node(known.id)?.inode == 10)
        // Many more: never one of the live ids, never a repeated (id, generation).
        var seen: Set<[UInt64]> = [[known.id, known.generation], [dropped.id, dropped.generation], [next.id, next.generation]]
        var live: Set<UInt64> = [NodeTable.rootID, known.id, next.id]
        for inode in UInt64(100)..<300 {
            let made = table.lookUp(file(inode), parent: NodeTable.rootID, name: FileName("f\(inode)"))
            #expect(!live.contains(made.id))
            #expect(seen.insert([made.id, made.generation]).inserted)
            live.insert(made.id)
            if inode % 3 == 0 {
                table.forget(made.id, count: 1)
                live.remove(made.id)
            }
        }
        #expect(table.count == live.count)
    }

    @Test func itemsAreOneNodeByKindDeviceAndInode() {
        let a = table.lookUp(file(10, device: 7), parent: NodeTable.rootID, name: "a")
        let otherDevice = table.lookUp(file(10, device: 8), parent: NodeTable.rootID, name: "b")
        let package = table.lookUp(.item(.package, device: 7, inode: 10), parent: NodeTable.rootID, name: "c")
        let hardLink = table.lookUp(file(10, device: 7), parent: NodeTable.rootID, name: "hard link")
        #expect(Set([a.id, otherDevice.id, package.id]).count == 3)
        #expect(hardLink.id == a.id)
        #expect(table.node(otherDevice.id)?.device == 8)
        #expect(table.node(package.id)?.kind == .package)
        #expect(table.ids(of: .package) == [package.id])
    }

    @Test func pathsFollowTheLatestParentAndNameSoAMovedDirectoryMovesItsSubtree() {
        let folder = table.lookUp(file(10), parent: NodeTable.rootID, name: "Old")
        let inner = table.lookUp(file(11), parent: folder.id, name: "Inner")
        let leaf = table.lookUp(file(12), parent: inner.id, name: "leaf.txt")
        #expect(table.path(of: leaf.id) == "/source/Old/Inner/leaf.txt")

        let elsewhere = table.lookUp(file(20), parent: NodeTable.rootID, name: "Elsewhere")
        let moved = table.lookUp(file(10), parent: elsewhere.id, name: "New")
        #expect(moved.id == folder.id, "a renamed directory is the same node")
        #expect(table.path(of: folder.id) == "/source/Elsewhere/New")
        #expect(table.path(of: leaf.id) == "/source/Elsewhere/New/Inner/leaf.txt")
        #expect(table.node(folder.id)?.name == "New")
        #expect(table.childNames(of: [elsewhere.id, NodeTable.rootID]) == [elsewhere.id: ["New"], NodeTable.rootID: ["Elsewhere"]])
    }

    @Test func aliasesAreTheOtherNamesTheKernelKnowsANodeBy() {
        let folder = table.lookUp(file(10), parent: NodeTable.rootID, name: "Documents")
        let package = table.lookUp(.item(.package, device: 7, inode: 11), parent: folder.id, name: "Chess.app", alias: "Schach")
        _ = table.lookUp(.item(.package, device: 7, inode: 11), parent: folder.id, name: "Chess.app", alias: "Schach")
        _ = table.lookUp(file(12), parent: folder.id, name: "same.txt", alias: "same.txt")
        #expect(table.aliases(under: folder.id) == ["Schach"], "once each; a name equal to the real one is no alias")
        let entries = table.entries(of: package.id).map { [String($0.parent), $0.name.string] }
        #expect(entries == [[String(folder.id), "Chess.app"], [String(folder.id), "Schach"]])

        // Reached later under another display name too (the languages changed): both are kept.
        _ = table.lookUp(.item(.package, device: 7, inode: 11), parent: folder.id, name: "Chess.app", alias: "Chess")
        #expect(Set(table.aliases(under: folder.id)) == ["Schach", "Chess"])

        #expect(table.forget(package.id, count: 3))
        #expect(table.aliases(under: folder.id).isEmpty, "a forgotten node's aliases go with it")
        #expect(table.entries(of: package.id).isEmpty)
    }

    @Test func synthesizedNodesAreFoundByWhatTheyShow() {
        let byID = NodeIdentity.synthesized(.byID, detail: .none)
        let view = NodeIdentity.synthesized(.bundleView, detail: .bundle(.identifier("org.example.Chess")))
        let a = table.lookUp(byID, parent: NodeTable.rootID, name: "by-id")
        let b = table.lookUp(view, parent: a.id, name: "org.example.Chess")
        #expect(table.lookUp(view, parent: a.id, name: "org.example.Chess").id == b.id)
        #expect(table.node(b.id)?.detail == .bundle(.identifier("org.example.Chess")))
        #expect(Set(table.synthesizedIDs()) == [a.id, b.id])
        #expect(table.forget(b.id, count: 2))
        #expect(table.synthesizedIDs() == [a.id])
        #expect(table.id(of: view) == nil)
        let again = table.lookUp(view, parent: a.id, name: "org.example.Chess")
        #expect(again.generation != b.generation)
    }

    @Test func namesSurviveCompactionOfTheNamesOfForgottenNodes() {
        // More than a megabyte of names freed, and more than half of all: the arena is repacked.
        let long = String(repeating: "n", count: 240)
        var kept: [(id: UInt64, name: FileName)] = []
        for inode in UInt64(100)..<10_100 {
            let name = FileName("\(inode)-\(long)")
            let node = table.lookUp(file(inode), parent: NodeTable.rootID, name: name)
            if inode % 10 == 0 { kept.append((node.id, name)) } else { table.forget(node.id, count: 1) }
        }
        #expect(table.count == kept.count + 1)
        for (id, name) in kept {
            #expect(table.node(id)?.name == name)
            #expect(table.path(of: id) == FilePath("/source").appending(name))
        }
    }
}
