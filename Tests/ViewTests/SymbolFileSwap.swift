import Fixtures
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The ways `Builds/Tool.app`'s executable is swapped for another file after it was indexed
/// (issue 37's identity checks), as the view's tests and the finder's make them: a symlink to a
/// root-only secret, the bundle replaced by a symlink, a hard link, the same size rewritten with a
/// later time, and removed.
enum SymbolFileSwap: String, CaseIterable, CustomTestStringConvertible {
    case none, fileSymlink, bundleSymlink, hardLink, sameSizeRewrite, removed

    static let executable = "Builds/Tool.app/Contents/MacOS/Tool"
    static let secret = Array("the root-only secret, 32 bytes!!".utf8)
    /// The swaps that leave another file where the executable was.
    static let replacements: [SymbolFileSwap] = [.fileSymlink, .bundleSymlink, .hardLink, .sameSizeRewrite]

    var testDescription: String { rawValue }

    func apply(to tree: TreeWriter) throws {
        switch self {
        case .none: break
        case .fileSymlink:
            tree.file("Private/secret.txt", Self.secret, mode: 0o600)
            tree.remove(Self.executable)
            tree.symlink(Self.executable, to: "../../../../Private/secret.txt")
        case .bundleSymlink:
            tree.file("Private/Tool.app/Contents/MacOS/Tool", Self.secret, mode: 0o600)
            tree.rename("Builds/Tool.app", "Builds/Old.app")
            tree.symlink("Builds/Tool.app", to: "../Private/Tool.app")
        case .hardLink:
            tree.file("Private/secret.bin", Self.secret, mode: 0o600)
            tree.remove(Self.executable)
            #expect(link(tree.path("Private/secret.bin"), tree.path(Self.executable)) == 0)
        case .sameSizeRewrite:
            let before = try FileStatus.of(FilePath(tree.path(Self.executable)))
            var bytes = try contents(tree.path(Self.executable))
            bytes.replaceSubrange(bytes.count - Self.secret.count..<bytes.count, with: Self.secret)
            tree.file(Self.executable, bytes, mode: 0o755)
            let later = timespec(tv_sec: Int(before.modificationTime / 1_000_000_000) + 1, tv_nsec: Int(before.modificationTime % 1_000_000_000))
            var times = [later, later]
            #expect(utimensat(AT_FDCWD, tree.path(Self.executable), &times, 0) == 0)
        case .removed:
            tree.remove(Self.executable)
        }
    }
}
