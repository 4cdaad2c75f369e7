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
                // Usage mistakes are user errors: ArgumentParser's message and the help that
                // tells the command's options, on one line; status 1.
                let message = Root.message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
                printError("\(message) (see `\(helpCommand(arguments, root))`)")
                exit(1)
            }
        }
    }

    /// `bundlefs COMMAND --help` for the subcommand the arguments name first, else `bundlefs --help`.
    static func helpCommand<Root: ParsableCommand>(_ arguments: [String], _ root: Root.Type) -> String {
        let names = Root.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        return arguments.first(where: names.contains).map { "bundlefs \($0) --help" } ?? "bundlefs --help"
    }

    /// Whether ArgumentParser raised this while reading the command line.
    static func isArgumentError<Root: ParsableCommand>(_ error: any Error, _ root: Root.Type) -> Bool {
        let code = Root.exitCode(for: error)
        return code == .validationFailure || (error is ValidationError) || String(describing: type(of: error)).contains("CommandError")
    }
}
