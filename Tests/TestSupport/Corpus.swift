import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The real bundles in ../shared/corpus (not part of the repository). Tests that read them are
/// skipped, with this message, in a clone that does not have them.
public enum Corpus {
    public static let skipMessage =
        "the real-bundle corpus (../shared/corpus/tree, or $BUNDLEFS_CORPUS) is not present in this checkout"

    /// The corpus tree's absolute path, when present.
    public static let tree: String? = {
        let environment = getenvString("BUNDLEFS_CORPUS")
        let packageRoot = PackagePaths.root
        let candidates = [environment, Paths.absolute("../shared/corpus/tree", base: packageRoot)].compactMap { $0 }
        return candidates.first { (try? FileStatus.of($0, followSymlinks: true))?.type == .directory }
    }()

    public static var isAvailable: Bool { tree != nil }

    public static func path(_ relative: String) -> String { Paths.join(tree!, relative) }

    public static let wheelsSkipMessage = "no macOS wheels (*.whl) in ../shared/corpus; `pip download --platform macosx_11_0_universal2 --only-binary=:all: --no-deps PACKAGE -d ../shared/corpus/wheels` puts some there"

    /// Wheels (zip files) anywhere in ../shared/corpus, beside the tree: macOS ones hold `.app`
    /// and `.framework` bundles.
    public static let wheels: [String] = {
        // $BUNDLEFS_WHEELS names another directory to look in.
        guard let base = getenvString("BUNDLEFS_WHEELS") ?? tree.map(Paths.parent) else { return [] }
        var found: [String] = []
        func walk(_ directory: String, depth: Int) {
            guard depth < 4, let handle = try? Descriptor.open(FilePath(directory), flags: Descriptor.directoryNoFollow),
                  let entries = try? handle.listDirectoryTyped() else { return }
            for entry in entries {
                let path = Paths.join(directory, entry.name.string)
                if entry.type == .directory { walk(path, depth: depth + 1) } else if entry.name.string.hasSuffix(".whl") { found.append(path) }
            }
        }
        walk(base, depth: 0)
        return found.sorted()
    }()
}

/// Where the package and its build products are.
public enum PackagePaths {
    /// The package root, from this file's location (Tests/TestSupport/Corpus.swift).
    public static let root: String = Paths.parent(Paths.parent(Paths.parent(#filePath)))
}

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let string = String(cString: value)
    return string.isEmpty ? nil : string
}
