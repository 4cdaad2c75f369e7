import Foundation
import SystemCalls
import Testing
import TestSupport

/// README.md's examples, run as a reader runs them (in a folder holding a copy of Sample/, with
/// the built bundlefs first on PATH) and compared with what README shows, so that the two cannot
/// drift apart. Times, process ids, event counts and machine paths are masked on both sides;
/// a line `...` in README stands for any lines. A command run while a background command
/// (`watch ... &`) works is asked again until it prints what README shows, within 20 s.
@Suite(.serialized) struct ReadmeTests {
    static let packageRoot: String = {
        var directory = Subprocess.productsDirectory
        while directory != "/" && !FileManager.default.fileExists(atPath: Paths.join(directory, "Package.swift")) {
            directory = Paths.parent(directory)
        }
        return directory
    }()

    /// An example: a command and the lines README shows it print.
    struct Example {
        var command: String
        var expected: [String]
        var line: Int
    }

    /// Every `$ ` line of README's fenced blocks, with the lines after it up to the next.
    static func examples(_ text: String) -> [Example] {
        var examples: [Example] = []
        var inBlock = false
        // The example the lines belong to: none outside blocks and before a block's first `$ `.
        var current: Int?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                inBlock.toggle()
                current = nil
            } else if inBlock && line.hasPrefix("$ ") {
                examples.append(Example(command: String(line.dropFirst(2)), expected: [], line: index + 1))
                current = examples.count - 1
            } else if let current {
                examples[current].expected.append(line)
            }
        }
        return examples
    }

    /// What varies from run to run or machine to machine, the same on both sides.
    static func masked(_ line: String) -> String {
        var line = line
        let masks: [(String, String)] = [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}"#, "TIME"), (#"\d+(\.\d+)? s\b"#, "N s"), (#"pid \d+"#, "pid N"),
            (#"events: +\d+ in \d+ batches, \d+ pending"#, "events: N in N batches, N pending"), (#"^(/bin/)?bash: (line \d+: )?"#, "bash: "),
            (#"\s+$"#, ""),
        ]
        for (pattern, replacement) in masks {
            line = line.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return line
    }

    /// Whether `actual` is `expected`, a `...` line standing for any lines.
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "..." { return (0...actual.count).contains { matches(Array(actual[$0...]), Array(expected.dropFirst())) } }
        guard let line = actual.first, line == first else { return false }
        return matches(Array(actual.dropFirst()), Array(expected.dropFirst()))
    }

    @Test func theReadmesExamplesPrintWhatItShows() throws {
        let readme = try String(contentsOfFile: Paths.join(Self.packageRoot, "README.md"), encoding: .utf8)
        let examples = Self.examples(readme)
        try #require(examples.count >= 20, "README's examples were not found")
        let temporary = TemporaryDirectory("readme")
        let work = temporary.appending("bundlefs"), scratch = temporary.appending("tmp")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let copied = try Subprocess.run("/bin/cp", ["-a", Paths.join(Self.packageRoot, "Sample"), work])
        try #require(copied.status == 0, "\(copied)")
        // `ls` as on the terminal README was written at: in columns.
        let profile = temporary.appending("profile.sh")
        try "ls() { command ls -C \"$@\"; }\n".write(toFile: profile, atomically: true, encoding: .utf8)
        let environment = [
            "PATH": Subprocess.productsDirectory + ":/usr/local/bin:/usr/bin:/bin", "BUNDLEFS_CATALOGUE": temporary.appending("catalogue.sqlite"),
            "LANG": "C", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "BASH_ENV": profile, "COLUMNS": "100",
        ]
        var background: [Process] = []
        defer {
            // The shell waits for its command before it takes a signal: its children go first.
            for process in background where process.isRunning {
                _ = try? Subprocess.run("/usr/bin/pkill", ["-TERM", "-P", String(process.processIdentifier)])
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
            _ = try? Subprocess.run("/bin/fusermount3", ["-u", "-z", Paths.join(scratch, "view")])
        }
        /// README's own paths, as the machine has them.
        func localized(_ command: String) -> String { command.replacingOccurrences(of: "/tmp/", with: scratch + "/") }
        /// The machine's paths, as README shows them.
        func shown(_ output: String) -> [String] {
            var lines = output.replacingOccurrences(of: scratch + "/", with: "/tmp/").replacingOccurrences(of: work, with: "/home/me/bundlefs")
                .components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            return lines.map { Self.masked($0.replacingOccurrences(of: "/home/me/bundlefs", with: "/...")) }
        }
        for example in examples {
            let expected = example.expected.map { Self.masked($0.replacingOccurrences(of: "/home/me/bundlefs", with: "/...")) }
            var command = localized(example.command)
            if command.hasSuffix("&") {
                // Started, and its output read until it shows what README shows.
                command.removeLast()
                let log = temporary.appending("background\(background.count).log")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/bash")
                process.arguments = ["-c", "exec > \(log) 2>&1; " + command]
                process.currentDirectoryURL = URL(fileURLWithPath: work)
                process.environment = environment
                try process.run()
                background.append(process)
                let printed = { shown((try? String(contentsOfFile: log, encoding: .utf8)) ?? "") }
                try? poll("README line \(example.line)") { Self.matches(printed(), expected) }
                #expect(Self.matches(printed(), expected), "README line \(example.line): `\(example.command)` printed:\n\(printed().joined(separator: "\n"))\nREADME shows:\n\(expected.joined(separator: "\n"))")
                continue
            }
            var last: ProcessResult?
            let answered: () throws -> Bool = {
                // The shell's own messages (a redirection refused) too, as a terminal shows them.
                let result = try Subprocess.run("/bin/bash", ["-c", "{ " + command + "\n} 2>&1"], environment: environment, directory: work, timeout: 60)
                last = result
                return Self.matches(shown(result.standardOutput), expected)
            }
            if background.isEmpty || expected.isEmpty {
                _ = try answered()
            } else {
                try? poll("README line \(example.line)", answered)
            }
            let printed = last.map { shown($0.standardOutput) } ?? []
            #expect(Self.matches(printed, expected), "README line \(example.line): `\(example.command)` printed:\n\(printed.joined(separator: "\n"))\nREADME shows:\n\(expected.joined(separator: "\n"))")
        }
    }

    /// Runs `condition` until it holds; throws after 20 s.
    func poll(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Clocks.monotonicSeconds() + 20
        while try !condition() {
            guard Clocks.monotonicSeconds() < deadline else { throw PollTimeout(description: what) }
            usleep(50_000)
        }
    }

    struct PollTimeout: Error, CustomStringConvertible {
        var description: String
    }
}
