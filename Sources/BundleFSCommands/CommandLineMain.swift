import ArgumentParser
import CatalogueCommands
#if canImport(Glibc)
import Glibc
#endif

extension CommandLineMain {
    /// Reads the command line with swift-argument-parser as `Root`'s, runs the command, and maps
    /// usage mistakes to status 1 with swift-argument-parser's message (help and --version: 0).
    /// A mistake is what reading the command line threw (options, arguments, `validate()`), or a
    /// `ValidationError` a command throws itself: told apart by where it came from, not by the
    /// library's private error types. (A request for help may come out of `run()`: the library's
    /// help command answers there.)
    static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) -> Never {
        run {
            var command: any ParsableCommand
            do { command = try Root.parseAsRoot(arguments) } catch { throw CommandLineReading(failure: error) }
            try command.run()
        } otherwise: { error in
            if let code = error as? ExitCode { exit(code.rawValue) }
            let reading = (error as? CommandLineReading)?.failure
            if Root.exitCode(for: reading ?? error) == .success {
                // --help, --version: ArgumentParser prints and exits 0.
                Root.exit(withError: reading ?? error)
            }
            guard let mistake = reading ?? (error is ValidationError ? error : nil) else { return }
            // Usage mistakes are user errors: ArgumentParser's message and the help that tells
            // the command's options, on one line; status 1.
            let message = Root.message(for: mistake).split(whereSeparator: \.isNewline).joined(separator: " ")
            printError("\(message) (see `\(helpCommand(arguments, root))`)")
            exit(1)
        }
    }

    /// What reading the command line threw.
    struct CommandLineReading: Error {
        let failure: any Error
    }

    /// `bundlefs COMMAND --help` for the subcommand the arguments name first, else `bundlefs --help`.
    static func helpCommand<Root: ParsableCommand>(_ arguments: [String], _ root: Root.Type) -> String {
        let names = Root.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        return arguments.first(where: names.contains).map { "bundlefs \($0) --help" } ?? "bundlefs --help"
    }
}
