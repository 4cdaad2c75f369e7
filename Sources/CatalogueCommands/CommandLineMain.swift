package import ArgumentParser
import Foundation
import SystemCalls

/// Runs a root command: parses arguments (kept byte-exact, see `FileNameCoding`), runs the
/// command, and maps every outcome to SPEC.md's exit statuses: 0 success, 1 a user error (one line
/// naming the bad input), 2 an internal failure. Never a stack trace. Both binaries' entry.
package enum CommandLineMain {
    /// The arguments after the program's name (argc is 0 when exec'd with an empty argv: none).
    package static func arguments() -> [String] {
        (1..<max(1, Int(CommandLine.argc))).map { FileNameCoding.string(cString: CommandLine.unsafeArgv[$0]!) }
    }

    package static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]) -> Never {
        run {
            var command = try Root.parseAsRoot(arguments)
            try command.run()
        } otherwise: { error in
            let code = Root.exitCode(for: error)
            if code == .success {
                // --help, --version: ArgumentParser prints and exits 0.
                Root.exit(withError: error)
            }
            if isArgumentError(error, root) {
                // Usage mistakes are user errors: ArgumentParser's message, status 1.
                printError(Root.message(for: error))
                FileHandle.standardError.write(Data("Usage: see `bundlefs --help`.\n".utf8))
                exit(1)
            }
        }
    }

    /// Runs a command already read (`DirectArguments`, or `run(_:arguments:)`'s parse), mapping
    /// what it throws to an exit status; `otherwise` sees the errors not of this module first.
    package static func run(_ body: () throws -> Void, otherwise: (any Error) -> Void = { _ in }) -> Never {
        let files = DescriptorLimit.raise(toAtLeast: DescriptorLimit.needed)
        if files < DescriptorLimit.needed {
            printError("only \(files) open files are allowed (ulimit -n); bundlefs needs at least \(DescriptorLimit.needed)")
            exit(1)
        }
        do {
            try body()
            exit(0)
        } catch let error as UserError {
            printError(error.description)
            exit(1)
        } catch let error as NegativeAnswer {
            printError(error.description)
            exit(error.status)
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch {
            otherwise(error)
            printError("internal error: \(error)")
            exit(2)
        }
    }

    /// Whether ArgumentParser raised this while reading the command line.
    static func isArgumentError<Root: ParsableCommand>(_ error: any Error, _ root: Root.Type) -> Bool {
        let code = Root.exitCode(for: error)
        return code == .validationFailure || (error is ValidationError) || String(describing: type(of: error)).contains("CommandError")
    }
}

package func printError(_ message: String) {
    FileHandle.standardError.write(Data("bundlefs: \(TerminalText.safe(message))\n".utf8))
}
