import BundleModel
import Records
import SystemCalls
import Testing

/// The known tree keeps directories by (parent, name) in slots: every name must come back exactly,
/// twins stay two, and ordinals tell visited from vanished.
@Suite struct KnownTreeTests {
    static let nfc = "R\u{E9}sum\u{E9}", nfd = "Re\u{301}sume\u{301}"
    static let invalid = FileNameCoding.string(from: Array("Caf".utf8) + [0xE9])
    static let paths: [FilePath] = [
        "/", "/tree", "/tree/\(nfc)", "/tree/\(nfd)", "/tree/\(invalid)", "/tree/tab\tand\nnewline", "/tree/a/b/c",
        "/tree/a", "/tree/\(nfc)/App.app", "/tree/\(String(repeating: "長", count: 80))",
    ].map { FilePath($0) }

    func tree() -> KnownTree {
        var tree = KnownTree()
        for (index, path) in Self.paths.enumerated() {
            tree.addDirectory(path, KnownTree.Directory(changeTime: Int64(index), inode: UInt64(index + 100), trusted: index % 2 == 0), sidecar: nil)
        }
        return tree
    }

    @Test func everyDirectoryComesBackWithItsState() {
        let tree = tree()
        #expect(tree.directoryCount == Self.paths.count)
        var ordinals = Set<UInt32>()
        for (index, path) in Self.paths.enumerated() {
            let found = tree.directory(at: path)
            #expect(found?.directory.changeTime == Int64(index) && found?.directory.inode == UInt64(index + 100), "\(path)")
            if let ordinal = found?.ordinal { ordinals.insert(ordinal) }
        }
        #expect(ordinals.count == Self.paths.count, "one ordinal each")
        // `/tree/a/b` was only on the way to `/tree/a/b/c`: not a catalogued directory.
        #expect(tree.directory(at: "/tree/a/b") == nil)
        #expect(tree.directory(at: "/tree/missing") == nil)
        #expect(tree.directory(at: FilePath("/tree/" + Self.nfc.uppercased())) == nil)
    }

    @Test func childrenAreTheCataloguedSubdirectories() {
        let tree = tree()
        let children = Set(tree.children(of: "/tree").map(\.string))
        #expect(children == Set([Self.nfc, Self.nfd, Self.invalid, "tab\tand\nnewline", "a", String(repeating: "長", count: 80)]))
        #expect(tree.children(of: "/tree/a").isEmpty, "b is not catalogued")
        #expect(tree.children(of: "/nowhere").isEmpty)
    }

    @Test func unvisitedDirectoriesAreNamedExactly() {
        let tree = tree()
        var visited = OrdinalSet()
        for path in Self.paths where path != FilePath("/tree/\(Self.nfd)") && path != FilePath("/tree/\(Self.invalid)") {
            visited.insert(tree.directory(at: path)!.ordinal)
        }
        #expect(Set(tree.directories(notIn: visited)) == Set([FilePath("/tree/\(Self.nfd)"), FilePath("/tree/\(Self.invalid)")]))
        #expect(Set(tree.directories(notIn: OrdinalSet())) == Set(Self.paths))
    }

    @Test func aDirectoryAddedAgainKeepsItsOrdinal() {
        var tree = tree()
        let before = tree.directory(at: "/tree/a")!.ordinal
        tree.addDirectory("/tree/a", KnownTree.Directory(changeTime: 42, inode: 7, trusted: true), sidecar: nil)
        #expect(tree.directory(at: "/tree/a")?.ordinal == before && tree.directory(at: "/tree/a")?.directory.changeTime == 42)
        #expect(tree.directoryCount == Self.paths.count)
    }
}
