import Foundation
import SystemCalls

/// Real packages from Debian's archive, fetched with `apt-get download` when a test first needs
/// them and unpacked with `dpkg-deb -x` into a cache outside the repository (nothing downloaded is
/// ever committed). Tests that read them are skipped, saying so, where apt cannot fetch them.
public enum DebianPackages {
    public static let cache = "/tmp/bundlefs-debian-packages"

    public static func skipMessage(_ package: String) -> String {
        "Debian's \(package) package could not be fetched with `apt-get download` (no network or no apt sources)"
    }

    /// The unpacked root of `package` (its `usr/...` inside), or nil when it cannot be fetched.
    public static func unpacked(_ package: String) -> String? {
        let root = Paths.join(cache, package)
        let marker = Paths.join(root, ".unpacked")
        if FileManager.default.fileExists(atPath: marker) { return root }
        let downloads = Paths.join(cache, "downloads")
        try? FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        guard let fetched = try? Subprocess.run("/usr/bin/apt-get", ["download", "-qq", package], directory: downloads, timeout: 120),
              fetched.status == 0,
              let deb = (try? FileManager.default.contentsOfDirectory(atPath: downloads))?.first(where: { $0.hasPrefix(package + "_") && $0.hasSuffix(".deb") }),
              (try? Subprocess.run("/usr/bin/dpkg-deb", ["-x", Paths.join(downloads, deb), root]))?.status == 0
        else { return nil }
        _ = FileManager.default.createFile(atPath: marker, contents: nil)
        return root
    }

    /// Debian 12's terminal.app: `usr/lib/GNUstep/Applications/Terminal.app/Resources` links into
    /// `usr/share/GNUstep/Terminal.app`.
    public static let terminal: String? = unpacked("terminal.app")
}
