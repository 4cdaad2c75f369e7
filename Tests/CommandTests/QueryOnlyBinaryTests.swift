import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Two binaries (issue 30): `bundlefs` answers `query` and `symbols` itself, linking SQLite and no
/// other C library, and hands every other command to `bundlefs-full` by exec. What it answers is
/// what the complete binary answers, byte for byte; what it hands over works as before.
@Suite struct QueryOnlyBinaryTests {
    let temporary = TemporaryDirectory("query-only")
    var catalogue: String { temporary.appending("catalogue.sqlite") }
    var complete: String { Paths.join(Subprocess.productsDirectory, "bundlefs-full") }
    var sample: String { Paths.join(Paths.parent(Paths.parent(Paths.parent(Subprocess.productsDirectory))), "Sample") }

    func both(_ arguments: [String]) throws -> (ProcessResult, ProcessResult) {
        let environment = ["BUNDLEFS_CATALOGUE": catalogue, "LANG": "C", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""]
        return (try Subprocess.run(Subprocess.bundlefs, arguments, environment: environment),
                try Subprocess.run(complete, arguments, environment: environment))
    }

    @Test func itsAnswersAreTheCompleteBinarysAndItLoadsOnlySQLite() throws {
        try #require(FileManager.default.fileExists(atPath: sample), "the sample tree at \(sample)")
        #expect(try Subprocess.bundlefs(["index", sample], catalogue: catalogue).status == 0)
        let questions: [[String]] = [
            ["query"], ["query", "--json"], ["query", "org.example.Chess"], ["query", "org.example.*", "--lang", "de", "--json"],
            ["query", "--kind", "application"], ["query", "--uuid", "48f282de1bd5f16267a9da7d51476fd4"], ["query", "--uuid", "nonsense"],
            ["query", "--in-archives", "--no-archives"], ["symbols", "48F282DE-1BD5-F162-67A9-DA7D51476FD4"], ["symbols", "00000000000000000000000000000000"],
            ["symbols", "zz"], ["query", "--lang", "!!"], ["--version"], ["query", "--bogus"], ["query", "a", "b"], ["symbols"],
            ["query", "--kind"], ["query", "--json", "org.example.Chess", "--lang", "en"],
        ]
        for question in questions {
            let (thin, full) = try both(question)
            #expect(thin.status == full.status && thin.standardOutput == full.standardOutput && thin.standardError == full.standardError,
                    "\(question): \(thin) against \(full)")
        }
        #expect(try both(["query", "--json"]).0.standardOutput.contains("org.example.Chess"))
        let libraries = try Subprocess.run("/usr/bin/ldd", [Subprocess.bundlefs]).standardOutput
        #expect(libraries.contains("libsqlite3"))
        // Nor Foundation (its start-up alone was a fifth of a lookup).
        for heavy in ["libarchive", "libpq", "libfuse3", "libtiff", "libpng", "libicns", "libFoundation", "lib_FoundationICU"] {
            #expect(!libraries.contains(heavy), "\(heavy) in \(libraries)")
        }
        #expect(try Subprocess.run("/usr/bin/ldd", [complete]).standardOutput.contains("libpq"))
    }

    /// Every other command, help, and PostgreSQL's options go to the complete binary; without it,
    /// they fail saying so, and what `bundlefs` answers itself still works.
    @Test func whatItDoesNotAnswerGoesToTheCompleteBinary() throws {
        try #require(FileManager.default.fileExists(atPath: sample), "the sample tree at \(sample)")
        #expect(try Subprocess.bundlefs(["index", sample], catalogue: catalogue).status == 0)
        let help = try Subprocess.bundlefs(["--help"], catalogue: catalogue)
        #expect(help.status == 0 && help.standardOutput.contains("mount") && help.standardOutput.contains("serve-symbols"), "\(help)")
        #expect(try Subprocess.bundlefs(["query", "--help"], catalogue: catalogue).standardOutput.contains("--database"))
        let database = try Subprocess.bundlefs(["query", "--database", "nonsense"], catalogue: catalogue)
        #expect(database.status == 1 && database.standardError.contains("not a PostgreSQL connection string"), "\(database)")

        let alone = temporary.appending("alone")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Subprocess.bundlefs, toPath: Paths.join(alone, "bundlefs"))
        let environment = ["BUNDLEFS_CATALOGUE": catalogue]
        let missing = try Subprocess.run(Paths.join(alone, "bundlefs"), ["index", sample], environment: environment)
        #expect(missing.status == 2 && missing.standardError.contains("bundlefs-full"), "\(missing)")
        let answered = try Subprocess.run(Paths.join(alone, "bundlefs"), ["query", "org.example.Chess"], environment: environment)
        #expect(answered.status == 0 && answered.standardOutput.contains("Chess.app"), "\(answered)")
    }
}
