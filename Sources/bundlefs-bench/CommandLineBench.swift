import Foundation
import SystemCalls
import TestSupport

/// SPEC.md's command-line figure (raised goals of 2026-11-25): `bundlefs query ID`, `bundlefs
/// symbols UUID` and `bundlefs --version` as whole processes, against the `sqlite3` command line
/// answering the same lookup from the same catalogue through the same index. Each command is
/// started 20 times a round by posix_spawn, output to /dev/null, the commands alternating, 7
/// rounds; the figure is the median round's time per process. Both builds are measured when the
/// static one (`make deb`'s, `.build-static`) is there, with the shared libraries each loads.
enum CommandLineBench {
    static let perRound = 20
    static let rounds = 7

    struct Command {
        var label: String
        var executable: String
        var arguments: [String]
    }

    static func run(binary: String, staticBinary: String?, catalogue: String, report: inout Report) throws {
        func first(_ sql: String) throws -> String {
            try Subprocess.run("/usr/bin/sqlite3", ["-readonly", catalogue, sql]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let identifier = try first("SELECT identifier FROM bundles WHERE kind = 'application' AND identifier IS NOT NULL ORDER BY id LIMIT 1 OFFSET 500")
        let uuid = try first("SELECT uuid_key FROM binaries WHERE uuid_key IS NOT NULL ORDER BY bundle_id LIMIT 1 OFFSET 300")
        guard !identifier.isEmpty, !uuid.isEmpty else { throw BenchFailure(description: "the catalogue has no application or UUID to look up") }
        let sqlite = [
            Command(label: "sqlite3, by identifier", executable: "/usr/bin/sqlite3",
                    arguments: ["-readonly", catalogue, "SELECT path FROM bundles WHERE identifier = '\(identifier)' COLLATE NOCASE"]),
            Command(label: "sqlite3, by UUID", executable: "/usr/bin/sqlite3",
                    arguments: ["-readonly", catalogue, "SELECT b.path FROM binaries x JOIN bundles b ON b.id = x.bundle_id WHERE x.uuid_key = '\(uuid)'"]),
        ]
        var builds = [("dynamic", binary)]
        if let staticBinary { builds.append(("static", staticBinary)) }
        var commands = sqlite
        for (name, path) in builds {
            commands += [
                Command(label: "bundlefs query ID (\(name), \(try libraries(path)) libraries)", executable: path, arguments: ["query", identifier]),
                Command(label: "bundlefs symbols UUID (\(name))", executable: path, arguments: ["symbols", uuid]),
                Command(label: "bundlefs --version (\(name))", executable: path, arguments: ["--version"]),
            ]
        }
        var samples = Array(repeating: [Double](), count: commands.count)
        for _ in 0..<rounds {
            for (index, command) in commands.enumerated() {
                let seconds = try Timing.seconds {
                    for _ in 0..<perRound {
                        let status = try Spawn.runDetached(command.executable, arguments: command.arguments, environment: ["BUNDLEFS_CATALOGUE": catalogue])
                        guard status == 0 || (command.arguments.first == "symbols" && status == 1) else {
                            throw BenchFailure(description: "\(command.executable) \(command.arguments) exited with \(status)")
                        }
                    }
                }
                samples[index].append(seconds / Double(perRound))
            }
        }
        let medians = samples.map(PairedSamples.median)
        report.notes.append("command line: \(try libraries("/usr/bin/sqlite3")) libraries for sqlite3; "
                            + zip(commands, medians).map { String(format: "%@ %.2f ms", $0.label, $1 * 1000) }.joined(separator: ", "))
        for (index, command) in commands.enumerated().dropFirst(2) {
            let baseline = command.arguments.first == "symbols" ? 1 : 0
            report.add("command line: \(command.label)", seconds: medians[index], against: sqlite[baseline].label,
                       baselineSeconds: medians[baseline], goal: "≤ 2x")
        }
    }

    /// The shared libraries a program loads (what `ldd` lists, less the vDSO).
    static func libraries(_ path: String) throws -> Int {
        try Subprocess.run("/usr/bin/ldd", [path]).standardOutput.split(separator: "\n").filter { !$0.contains("linux-vdso") }.count
    }
}
