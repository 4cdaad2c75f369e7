#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Runs a command and maps every outcome to SPEC.md's exit statuses: 0 success, 1 a user error
/// (one line naming the bad input), 2 an internal failure. Never a stack trace. Both binaries'
/// entry: the complete one reads its command line with swift-argument-parser first.
package enum CommandLineMain {
    /// The arguments after the program's name, kept byte-exact (`FileNameCoding`); none when
    /// exec'd with an empty argv.
    package static func arguments() -> [String] {
        (1..<max(1, Int(CommandLine.argc))).map { FileNameCoding.string(cString: CommandLine.unsafeArgv[$0]!) }
    }

    /// Runs a command already read, mapping what it throws to an exit status; `otherwise` sees
    /// the errors not of this module first (swift-argument-parser's, in the complete binary).
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
        } catch {
            otherwise(error)
            printError("internal error: \(error)")
            exit(2)
        }
    }
}

package func printError(_ message: String) {
    writeAll(2, Array("bundlefs: \(TerminalText.safe(message))\n".utf8))
}

/// Writes all of `bytes` to a descriptor (standard output or error), as far as it takes them.
package func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            written += count
        } else if count < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}
