import Foundation
import TestSupport

/// Debian's chromium, headless: the DOM it built after the page's scripts ran, and screenshots.
enum Chromium {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let skipMessage = "chromium is not installed (`make deps` installs Debian's chromium): the browser tests are skipped"

    /// Flags for a throw-away profile with nothing reaching out: no sync, no updates, no
    /// component downloads, no first-run pages, every host but loopback unresolvable.
    static func arguments(profile: String, language: String) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", "--disable-sync",
         "--disable-background-networking", "--disable-component-update", "--disable-default-apps", "--mute-audio",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--user-data-dir=\(profile)",
         "--lang=\(language)", "--accept-lang=\(language)", "--virtual-time-budget=3000"]
    }

    /// The DOM of `url` after its scripts ran, serialized.
    static func dom(_ url: String, language: String = "en", profile: String) throws -> String {
        let result = try Subprocess.run(path!, arguments(profile: profile, language: language) + ["--dump-dom", url], timeout: 120)
        guard result.status == 0 else { throw Toolchain.ToolMissing(name: "chromium --dump-dom \(url): \(result)") }
        return result.standardOutput
    }

    /// A PNG screenshot of `url`, `width`×`height`.
    static func screenshot(_ url: String, to file: String, language: String = "en", width: Int = 1200, height: Int = 800, profile: String) throws {
        let result = try Subprocess.run(path!, arguments(profile: profile, language: language)
            + ["--hide-scrollbars", "--window-size=\(width),\(height)", "--screenshot=\(file)", url], timeout: 120)
        guard result.status == 0, FileManager.default.fileExists(atPath: file) else { throw Toolchain.ToolMissing(name: "chromium --screenshot \(url): \(result)") }
    }
}
