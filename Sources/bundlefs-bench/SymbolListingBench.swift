import Foundation
import SystemCalls
import TestSupport

/// The first `ls -R` of each symbol store layout (`.bundlefs/symbols/native` and `unified`) after a
/// mount, when the daemon reads the catalogue for every directory, against `ls -R` of a native
/// tree of the same shape (the same directories and names, empty files) written in the same run
/// from the view's own listing. Each round mounts afresh; the daemon's CPU time is in the notes.
///
/// A second baseline says what any FUSE filesystem pays for that listing: bindfs over the native
/// shape, mounted afresh each round (the kernel asks the daemon for every directory it has not
/// listed: at 135,000 directories that is a listing and two round trips each, whoever answers).
enum SymbolListingBench {
    static let layouts = ["native", "unified"]

    static func run(binary: String, output: String, bundleTree: String, mountPoint: String, runs: Int, report: inout Report) throws {
        let rounds = max(3, min(runs, 5))
        var wall = Dictionary(uniqueKeysWithValues: layouts.map { ($0, [Double]()) })
        var cpu = wall, nativeWall = wall, bindfsWall = wall
        let bindfsMount = Paths.join(output, "mnt-bindfs-shape")
        var shapes: [String: (path: String, directories: Int, files: Int)] = [:]
        for _ in 0..<rounds {
            let view = try ViewBench.mountView(binary: binary, source: bundleTree, mountPoint: mountPoint, output: output, threads: nil)
            for layout in layouts {
                let listed = view.path(".bundlefs/symbols/\(layout)")
                let before = BackendBench.cpuSeconds(view.pid)
                wall[layout]!.append(Timing.run("/bin/ls", ["-R", listed]))
                cpu[layout]!.append(BackendBench.cpuSeconds(view.pid) - before)
                if shapes[layout] == nil { shapes[layout] = try copyShape(of: listed, to: Paths.join(output, "symbols-shape-\(layout)")) }
                let native = shapes[layout]!.path
                nativeWall[layout]!.append(Timing.run("/bin/ls", ["-R", native]))
                if ViewBench.mountBindfs(source: native, mountPoint: bindfsMount) {
                    bindfsWall[layout]!.append(Timing.run("/bin/ls", ["-R", bindfsMount]))
                    ViewBench.unmountIfMounted(bindfsMount)
                }
            }
            try view.stop()
        }
        for layout in layouts {
            let shape = shapes[layout]!
            report.add("view: first `ls -R .bundlefs/symbols/\(layout)` after a mount (\(shape.directories.formatted()) directories, \(shape.files.formatted()) files)",
                       seconds: PairedSamples.median(wall[layout]!), against: "native tree of that shape",
                       baselineSeconds: PairedSamples.median(nativeWall[layout]!), goal: "≤ 2x")
            report.notes.append("first ls -R symbols/\(layout) after a mount: \(PairedSamples.describe(wall[layout]!)), the daemon's CPU "
                                + "\(PairedSamples.describe(cpu[layout]!)); native tree of that shape \(PairedSamples.describe(nativeWall[layout]!)) (\(rounds) mounts)")
            if let bound = bindfsWall[layout], !bound.isEmpty {
                report.add("view: first `ls -R .bundlefs/symbols/\(layout)` after a mount, against any FUSE filesystem",
                           seconds: PairedSamples.median(wall[layout]!), against: "bindfs of that shape, first `ls -R` after its mount",
                           baselineSeconds: PairedSamples.median(bound), goal: "≤ 1.2x")
                report.notes.append("first ls -R of bindfs over the \(layout) shape after its mount: \(PairedSamples.describe(bound))")
            }
        }
    }

    /// Writes the directories and (empty) files under `listed` below `copy`, afresh.
    static func copyShape(of listed: String, to copy: String) throws -> (path: String, directories: Int, files: Int) {
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        var pending = [(listed, copy)]
        var directories = 0, files = 0
        while let (from, to) = pending.popLast() {
            for entry in try Descriptor.open(from, flags: Descriptor.directoryNoFollow).listDirectory() {
                let name = entry.name.string
                if entry.type == .directory {
                    directories += 1
                    mkdir(Paths.join(to, name), 0o755)
                    pending.append((Paths.join(from, name), Paths.join(to, name)))
                } else {
                    files += 1
                    close(open(Paths.join(to, name), O_CREAT | O_WRONLY | O_CLOEXEC, 0o644))
                }
            }
        }
        return (copy, directories, files)
    }
}
