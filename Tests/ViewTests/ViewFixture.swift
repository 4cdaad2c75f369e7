import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Every test that mounts runs inside this suite, one at a time: each mounts its own view, and
/// timing checks ("visible within a second") should not compete with other mounts for two cores.
@Suite(.serialized) enum MountedViewTests {}

/// A source tree written for the view's tests, and mounts of it that are always unmounted.
final class ViewFixture: @unchecked Sendable {
    let directory = TemporaryDirectory("view")
    let tree: TreeWriter
    private var mounts: [MountedView] = []

    static let hostileNames = [
        "../../etc", "a/b", "tab\tand\u{7}bell\nnewline", ".", "..", String(repeating: "長", count: 3500),
    ]

    init() {
        tree = TreeWriter(root: directory.appending("source"))
        Self.write(tree)
    }

    var source: String { tree.root }

    // Unmount before the directory goes: stored properties are released in declaration order,
    // and removing a directory that still holds a mount walks the view and leaves the mount point.
    deinit { for view in mounts { view.cleanUp() } }

    /// Mounts the source (another mount point each time) and waits until it is mounted.
    func mount(languages: String, arguments: [String] = [], launcher: [String] = []) throws -> MountedView {
        let index = mounts.count
        let view = try MountedView(
            source: source, mountPoint: directory.appending("mnt\(index)"), catalogue: directory.appending("cache\(index)/catalogue.sqlite"),
            languages: languages, logFile: directory.appending("mount\(index).log"), arguments: arguments, launcher: launcher)
        mounts.append(view)
        return view
    }

    static func write(_ tree: TreeWriter) {
        tree.macApp("Applications/Chess.app", identifier: "org.example.chess",
                    info: ["CFBundleName": .string("Chess"), "CFBundleVersion": .string("2.0"), "CFBundleDevelopmentRegion": .string("en")],
                    localizedStrings: ["de": ["CFBundleDisplayName": "Schach"], "en": ["CFBundleDisplayName": "Chess"]])
        tree.text("Applications/Chess.app/Contents/Resources/board.png", "global board\n")
        tree.text("Applications/Chess.app/Contents/Resources/de.lproj/Rules.html", "Regeln\n")
        tree.text("Applications/Chess.app/Contents/Resources/en.lproj/Rules.html", "Rules\n")
        tree.text("Applications/Chess.app/Contents/Resources/Base.lproj/MainMenu.nib", "base nib\n")
        tree.text("Applications/Chess.app/Contents/Resources/fr.lproj/OnlyFrench.txt", "français\n")
        tree.text("Applications/Chess.app/Contents/Resources/Sounds/move.aiff", "global move\n")
        tree.text("Applications/Chess.app/Contents/Resources/de.lproj/Sounds/check.aiff", "Schach!\n")
        tree.text("Applications/Chess.app/Contents/Resources/private.txt", "secret\n", mode: 0o600)
        tree.file("Applications/Chess.app/Contents/Resources/big.bin", pseudoRandomBytes(count: 700_000, seed: 7))
        tree.symlink("Applications/Chess.app/Contents/Resources/rules-link.html", to: "en.lproj/Rules.html")
        tree.symlink("Applications/Chess.app/Contents/Resources/outside", to: "../../../../README.txt")
        tree.directory("Applications/Chess.app/Contents/Resources/Empty Folder")
        // An older copy with the same identifier: by-id shows the higher version.
        tree.macApp("Applications/Old/Chess.app", identifier: "org.example.chess",
                    info: ["CFBundleName": .string("Chess"), "CFBundleVersion": .string("1.0")])
        for (index, name) in hostileNames.enumerated() {
            tree.macApp("Oddities/Hostile\(index).app", identifier: "org.example.hostile\(index)",
                        info: ["CFBundleName": .string("Hostile\(index)")],
                        localizedStrings: ["en": ["CFBundleDisplayName": name], "de": ["CFBundleDisplayName": name]])
        }
        tree.text("Documents/Reports.localized/2026.txt", "report\n")
        tree.strings("Documents/Reports.localized/.localized/de.strings", ["Reports": "Berichte"], as: .utf16LittleEndianWithBOM)
        tree.text("Documents/notes.txt", "notes\n")
        tree.text("Documents/.hidden", "dot file\n")
        tree.text("Documents/.DS_Store", "finder junk\n")
        tree.file("Documents/._notes.txt", FinderInfoBlobs.appleDouble(FinderInfoBlobs.record(flags8: 0)))
        tree.text("Documents/invisible.txt", "not listed\n")
        tree.setAttribute("Documents/invisible.txt", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0x40))
        tree.text("Documents/hidden-extension.txt", "listed without .txt\n")
        tree.setAttribute("Documents/hidden-extension.txt", name: "user.com.apple.FinderInfo", value: FinderInfoBlobs.record(flags8: 0, flags9: 0x10))
        tree.setAttribute("Documents/notes.txt", name: "user.comment", value: Array("a note".utf8))
        tree.macFramework("Library/Frameworks/Kit.framework", identifier: "org.example.kit")
        tree.symlink("chess-binary", to: "Applications/Chess.app/Contents/MacOS/Chess")
        tree.text("README.txt", "read me\n", mode: 0o640)
    }
}

/// Deterministic bytes for content checks.
func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// The names a directory lists (readdir through the kernel), without `.` and `..`.
func listing(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}

/// The bytes of a file read through the kernel.
func contents(_ path: String) throws -> [UInt8] {
    let descriptor = try Descriptor.open(path, flags: Descriptor.readOnly)
    var result: [UInt8] = []
    while true {
        let chunk = try descriptor.read(at: Int64(result.count), count: 1 << 16)
        if chunk.isEmpty { return result }
        result += chunk
    }
}
