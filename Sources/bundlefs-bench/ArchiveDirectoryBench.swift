import Fixtures
import Foundation
import SystemCalls
import TestSupport

/// A directory of archive files written once (kept in `bench-out` while its marker says the same
/// generator and count), then indexed whole against a shell loop over the same files, alternating:
/// the `.ipa` and `.pkg` sections.
struct ArchiveDirectoryBench {
    var directory: String
    /// What the files are, for the marker: a section's generator version and count.
    var stamp: String

    /// Runs `write` into an emptied directory unless the marker says it holds what `stamp` says.
    func generateOnce(_ description: String, write: () throws -> Void) throws {
        let marker = Paths.join(directory, ".bundlefs-bench-archives")
        guard (try? String(contentsOfFile: marker, encoding: .utf8)) != stamp else { return }
        progress("writing \(description) in \(directory) ...")
        removeTree(directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try write()
        try stamp.write(toFile: marker, atomically: false, encoding: .utf8)
    }

    /// `bundlefs index` of the directory into a fresh catalogue, against `/bin/sh -c loop` over
    /// `files` (warmed once), at least five runs each.
    func measure(binary: String, catalogue: String, files: [String], loop: String, runs: Int) -> PairedSamples {
        _ = Timing.run("/bin/sh", ["-c", loop, "sh"] + files)
        var samples = PairedSamples()
        for _ in 0..<max(5, runs) {
            samples.native.append(Timing.run("/bin/sh", ["-c", loop, "sh"] + files))
            CatalogueFiles.remove(catalogue)
            samples.view.append(Timing.run(binary, ["index", directory], environment: ["BUNDLEFS_CATALOGUE": catalogue]))
        }
        return samples
    }
}
