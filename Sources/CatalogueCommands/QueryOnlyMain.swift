#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// `bundlefs` as installed: the commands that only read the catalogue (`query`, `symbols`,
/// `--version`), answered by a binary that links SQLite and no other C library, and every other
/// command handed to the complete binary (`bundlefs-full`) by `execv`, with the same arguments, in
/// the same process. A lookup from a script or lldb's DBGShellCommands (once per UUID of a crash)
/// then does not load the 40 libraries libpq, libtiff, libarchive and libfuse bring, which took
/// most of its time (Docs/packaging.md).
public enum QueryOnlyMain {
    public static func run() -> Never {
        let arguments = CommandLineMain.arguments()
        if arguments == ["--version"] {
            print(BundleFSVersion.string)
            exit(0)
        }
        guard answersHere(arguments) else { handOver() }
        switch DirectArguments.parse(arguments) {
        case let .query(request): CommandLineMain.run { try request.run() }
        case let .symbols(request): CommandLineMain.run { try request.run() }
        case nil: break
        }
        // The command parsed as the root: only its options are reflected (a quarter of a lookup
        // was swift-argument-parser making every command's property wrappers' metadata).
        let rest = Array(arguments.dropFirst())
        if arguments.first == "query" { CommandLineMain.run(QueryCommand.self, arguments: rest) }
        CommandLineMain.run(SymbolsCommand.self, arguments: rest)
    }

    /// `query` and `symbols` on the local catalogue; not their help (the complete binary's lists
    /// every command) nor PostgreSQL (`--database`, `--host`: libpq is the complete binary's).
    static func answersHere(_ arguments: [String]) -> Bool {
        guard let command = arguments.first, ["query", "symbols"].contains(command) else { return false }
        let handedOver = ["--database", "--host", "--help", "-h", "--experimental-dump-help"]
        return !arguments.dropFirst().contains { argument in
            handedOver.contains(argument) || handedOver.contains { argument.hasPrefix($0 + "=") }
        }
    }

    /// Where the complete binary is: beside this one (a build's products), or in
    /// `../lib/bundlefs/` from it (`/usr/bin` and `/usr/lib/bundlefs` in the package).
    static func completeBinary() -> FilePath? {
        guard let own = try? FilePath("/proc/self/exe").resolved() else { return nil }
        let candidates = [own.parent.appending("bundlefs-full"), own.parent.parent.appending("lib/bundlefs/bundlefs-full")]
        return candidates.first { path in path.string.withCString { access($0, X_OK) } == 0 }
    }

    /// Replaces this process with the complete binary, the arguments passed byte for byte.
    static func handOver() -> Never {
        guard let complete = completeBinary() else {
            printError("the complete binary, bundlefs-full, is not beside this one nor in ../lib/bundlefs/; reinstall bundlefs")
            exit(2)
        }
        complete.string.withCString { path in _ = execv(path, CommandLine.unsafeArgv) }
        printError("cannot run \(complete): \(String(cString: strerror(errno)))")
        exit(2)
    }
}
