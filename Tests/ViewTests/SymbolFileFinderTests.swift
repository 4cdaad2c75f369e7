import BundleModel
import Catalogue
import Fixtures
import Indexer
import Synchronization
import SystemCalls
import Testing
import TestSupport
@testable import View
#if canImport(Glibc)
import Glibc
#endif

/// One finder of symbol files (`SymbolFileFinder`): the view's symbol stores and the HTTP server's
/// lookup (`Catalogue.symbolFile`, what `SymbolServer` answers from) find the same file for every
/// UUID and role, and refuse alike, for the same reason, a file swapped since it was indexed
/// (issue 37's identity checks). Nothing watches the tree here, so a swap stays unread.
@Suite struct SymbolFileFinderTests {
    let directory = TemporaryDirectory("symbol-finder")
    let tree: TreeWriter
    static let machO = MachOImage.uuid(seed: 71)
    static let buildID = (0..<20).map { UInt8(0xB0 + $0) }
    static let executable = SymbolFileSwap.executable

    init() {
        tree = TreeWriter(root: directory.appending("tree"))
        tree.machOApp("Builds/Tool.app", identifier: "org.example.tool", executable: MachOImage.arm64(uuid: Self.machO).bytes())
        var dwarf = MachOImage.arm64(uuid: Self.machO)
        dwarf.fileType = 10
        tree.dSYM("Builds/Tool.app.dSYM", dwarfName: "Tool", dwarf: dwarf.bytes())
        // An ELF tool without a dSYM: its executable answers `debuginfo` too, as debuginfod serves it.
        tree.gnustepApp("Builds/Md5.app", info: ["NSExecutable": .string("Md5"), "CFBundleIdentifier": .string("org.example.md5")])
        tree.file("Builds/Md5.app/Md5", ELFImage(buildID: Self.buildID).bytes(), mode: 0o755)
    }

    typealias Swap = SymbolFileSwap

    /// What one side found: the file (path, device and inode) or nothing, and what it refused.
    struct Found: Equatable, CustomStringConvertible {
        var file: String?
        var refusals: [String]
        var description: String { "\(file ?? "nothing"), refused: \(refusals)" }
    }

    @Test(arguments: Swap.allCases)
    func theViewAndTheServerFindTheSameFile(_ swap: Swap) throws {
        let catalogue = try Catalogue(path: FilePath(directory.appending("catalogue.db")), mode: .readWrite)
        let root = try Indexer.canonicalRoot(FilePath(tree.root))
        _ = try Indexer(catalogue: catalogue).index(root: root)
        try swap.apply(to: tree)
        let viewRefusals = Mutex<[String]>([])
        let stores = SymbolStores(source: try ScanRoot(path: root), catalogue: catalogue, refused: { refusal in
            viewRefusals.withLock { $0.append(refusal.description) }
        })
        var refusedExecutable = false
        for key in [BinarySlice.uuidKey(BinarySlice.canonicalUUID(Self.machO))!, Self.buildID.map { String(format: "%02x", $0) }.joined()] {
            let format = try #require(try catalogue.symbolMatches(uuidKey: key).first?.slice.format)
            for role in SymbolLayout.Role.allCases {
                let entry = SymbolLayout.Entry(key: key, role: role)
                var serverRefusals: [String] = []
                let served = try catalogue.symbolFile(entry, roots: [root], refused: { serverRefusals.append($0.description) })
                let server = Found(file: served.map { "\($0.path) \($0.status.device):\($0.status.inode)" }, refusals: serverRefusals)
                for layout in SymbolLayout.allCases {
                    let components = layout.components(of: entry, format: format)
                    viewRefusals.withLock { $0 = [] }
                    var view = Found(file: nil, refusals: [])
                    if case let .file(_, path, status, _)? = stores.step(components.last!, in: SymbolPath(layout: layout, components: Array(components.dropLast()))) {
                        view.file = "\(path) \(status.device):\(status.inode)"
                    }
                    view.refusals = viewRefusals.withLock { $0 }
                    #expect(view == server, "\(swap), \(layout) \(components.joined(separator: "/"))")
                }
                refusedExecutable = refusedExecutable || serverRefusals.contains { $0.contains("Tool.app/Contents/MacOS/Tool: not served") }
                if key.count == 40 { #expect(served != nil, "the ELF tool's \(role) is its executable") }
            }
        }
        #expect(refusedExecutable == (swap != .none), "\(swap)")
    }
}
