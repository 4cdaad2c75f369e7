#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// `bundlefs` as installed: `query` and `symbols` in their plain forms (`DirectArguments`) and
/// `--version`, answered by a binary of the standard library, the catalogue's reading and SQLite
/// alone; everything else (every other command, help, usage mistakes, PostgreSQL's `--database`)
/// is handed to the complete binary (`bundlefs-full`) by `execv`, with the same arguments, in the
/// same process. A lookup from a script or lldb's DBGShellCommands (once per UUID of a crash) then
/// loads neither the 40 libraries libpq, libtiff, libarchive and libfuse bring nor Foundation,
/// GRDB and swift-argument-parser, which took most of its time (Docs/packaging.md).
public enum QueryOnlyMain {
    public static func run() -> Never {
        let arguments = CommandLineMain.arguments()
        if arguments == ["--version"] {
            print(BundleFSVersion.string)
            exit(0)
        }
        switch DirectArguments.parse(arguments) {
        case let .query(request): CommandLineMain.run { try request.run() }
        case let .symbols(request): CommandLineMain.run { try request.run() }
        case nil: handOver()
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
