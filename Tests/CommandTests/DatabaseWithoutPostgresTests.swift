import Foundation
import SystemCalls
import Testing
import TestSupport

/// `--database` is the complete binary's (issue 39: it answers it itself, no function installed
/// at start): the query-only `bundlefs` hands it over, and without the complete binary beside it
/// says so in one line, as it did before.
@Suite struct DatabaseWithoutPostgresTests {
    let temporary = TemporaryDirectory("database-alone")

    @Test func theQueryOnlyBinaryAloneSaysWhatIsMissing() throws {
        let alone = temporary.appending("alone")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Subprocess.bundlefs, toPath: Paths.join(alone, "bundlefs"))
        let environment = ["BUNDLEFS_CATALOGUE": temporary.appending("catalogue.sqlite")]
        let asked = try Subprocess.run(Paths.join(alone, "bundlefs"), ["query", "--database", "postgresql://db.invalid/c"], environment: environment)
        #expect(asked.status == 2 && asked.standardError.contains("bundlefs-full") && asked.standardOutput.isEmpty, "\(asked)")
    }

    /// The complete binary asks PostgreSQL: an unreachable server is libpq's error, the
    /// connection string redacted, never "cannot reach PostgreSQL".
    @Test func theCompleteBinaryAsksPostgreSQLItself() throws {
        let complete = Paths.join(Subprocess.productsDirectory, "bundlefs-full")
        let environment = ["BUNDLEFS_CATALOGUE": temporary.appending("catalogue.sqlite"), "PGCONNECT_TIMEOUT": "5"]
        let asked = try Subprocess.run(complete, ["query", "--database", "postgresql://nobody:secret@127.0.0.1:1/c"], environment: environment)
        #expect(asked.status == 1 && !asked.standardError.contains("cannot reach PostgreSQL") && !asked.standardError.contains("secret"), "\(asked)")
        #expect(asked.standardError.contains("127.0.0.1"), "\(asked)")
    }
}
