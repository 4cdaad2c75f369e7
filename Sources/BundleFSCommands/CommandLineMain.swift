import ArgumentParser
import CatalogueCommands
#if canImport(Glibc)
import Glibc
#endif

extension CommandLineMain {
    /// Reads the command line with swift-argument-parser as `Root`'s, runs the command, and maps
    /// usage mistakes to status 1 with swift-argument-parser's message (help and --version: 0).
    static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) -> Never {
        run {
            var command = try Root.parseAsRoot(arguments)
            try command.run()
        } otherwise: { error in
            if let code = error as? ExitCode { exit(code.rawValue) }
            let code = Root.exitCode(for: error)
            if code == .success {
                // --help, --version: ArgumentParser prints and exits 0.
                Root.exit(withError: error)
            }
            if isArgumentError(error, root) {
                // Usage mistakes are user errors: ArgumentParser's message, status 1.
                printError(Root.message(for: error))
                writeAll(2, Array("Usage: see `bundlefs --help`.\n".utf8))
                exit(1)
            }
        }
    }

    /// Whether ArgumentParser raised this while reading the command line.
    static func isArgumentError<Root: ParsableCommand>(_ error: any Error, _ root: Root.Type) -> Bool {
        let code = Root.exitCode(for: error)
        return code == .validationFailure || (error is ValidationError) || String(describing: type(of: error)).contains("CommandError")
    }
}
