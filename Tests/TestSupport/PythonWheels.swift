import Foundation
import SystemCalls

/// Real macOS wheels from PyPI, fetched with `pip download` when a test first needs them into a
/// cache outside the repository (nothing downloaded is ever committed), each checked against its
/// pinned sha256. Tests that read them are skipped, saying so, where pip cannot fetch them.
public enum PythonWheels {
    /// One pinned wheel: what pip is asked for and what it must deliver.
    public struct Wheel: Sendable {
        public var requirement: String
        /// The platform tag pip is told to pretend (the wheel is for macOS, this machine is not).
        public var platform: String
        public var fileName: String
        public var sha256: String
    }

    public static let cache = "/tmp/bundlefs-wheels"

    public static func skipMessage(_ wheel: Wheel) -> String {
        "the wheel \(wheel.fileName) could not be fetched with `pip download` (no python3 -m pip, no network or no PyPI), or its sha256 is not the pinned one"
    }

    /// The `.whl` file, downloaded once, or nil when it cannot be fetched or is not the pinned one.
    public static func downloaded(_ wheel: Wheel) -> String? {
        let downloads = Paths.join(cache, "downloads")
        let file = Paths.join(downloads, wheel.fileName)
        if isPinned(file, wheel.sha256) { return file }
        try? FileManager.default.removeItem(atPath: file)
        try? FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        // --no-cache-dir: pip's own cache (~/.cache/pip) would keep a second copy of every wheel.
        let arguments = ["python3", "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-cache-dir",
                         "--no-deps", "--only-binary=:all:", "--platform", wheel.platform, "-d", downloads, wheel.requirement]
        guard (try? Subprocess.run("/usr/bin/env", arguments, timeout: 600))?.status == 0, isPinned(file, wheel.sha256) else {
            // A partial or unexpected file is not kept for the next run to trust.
            try? FileManager.default.removeItem(atPath: file)
            return nil
        }
        return file
    }

    /// The wheel unpacked as pip installs it: its members under `site-packages`, which is returned.
    /// (pip also moves a `NAME.data/purelib` or `platlib` directory there; the wheels pinned here have none.)
    public static func installed(_ wheel: Wheel) -> String? {
        guard let file = downloaded(wheel) else { return nil }
        let root = Paths.join(cache, wheel.fileName.replacingOccurrences(of: ".whl", with: ""))
        let sitePackages = Paths.join(root, "site-packages")
        let marker = Paths.join(root, ".unpacked")
        if FileManager.default.fileExists(atPath: marker) { return sitePackages }
        try? FileManager.default.removeItem(atPath: root)
        guard (try? Subprocess.run("/usr/bin/env", ["python3", "-m", "zipfile", "-e", file, sitePackages], timeout: 300))?.status == 0
        else { return nil }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        return sitePackages
    }

    /// Whether the file is the pinned one. Hashing the 98 MB wheel cost about a second of CPU in
    /// each test process that asked: a match is remembered beside the file with its size, inode
    /// and modification time, and trusted while those stay the same.
    static func isPinned(_ file: String, _ sha256: String) -> Bool {
        guard let status = try? FileStatus.of(FilePath(file)) else { return false }
        let stamp = file + ".verified", expected = "\(sha256) \(status.size) \(status.inode) \(status.modificationTime)\n"
        if (try? String(contentsOfFile: stamp, encoding: .utf8)) == expected { return true }
        guard self.sha256(of: file) == sha256 else { return false }
        try? expected.write(toFile: stamp, atomically: true, encoding: .utf8)
        return true
    }

    static func sha256(of file: String) -> String? {
        guard FileManager.default.fileExists(atPath: file),
              let result = try? Subprocess.run("/usr/bin/sha256sum", [file]), result.status == 0 else { return nil }
        return result.standardOutput.split(separator: " ").first.map(String.init)
    }

    /// Qt 5.15.2's tools for macOS (x86_64, 98 MB), from pyqt5-tools' companion package. Its
    /// `qt5_applications/Qt/bin` holds six applications; three claim documents: Designer.app
    /// (`ui`, Editor, no rank), Linguist.app (`qph`, `ts`, `po`, `xlf`, Editor, Default) and qml.app
    /// (the content type `org.qt-project.qml`, Viewer, which it exports for `qml`, conforming to
    /// `public.plain-text`). None declares CFBundleURLTypes.
    public static let qt5Applications = Wheel(
        requirement: "qt5-applications==5.15.2.2.3", platform: "macosx_10_14_x86_64",
        fileName: "qt5_applications-5.15.2.2.3-py3-none-macosx_10_14_x86_64.whl",
        sha256: "45395074b742ca6765990d3645d5e24a59415c1d968c40c6a3443da22c621ba8")

    /// Fetched (and unpacked) once per test run.
    public static let qt5ApplicationsWheel: String? = downloaded(qt5Applications)
    public static let qt5ApplicationsInstalled: String? = qt5ApplicationsWheel == nil ? nil : installed(qt5Applications)
}
