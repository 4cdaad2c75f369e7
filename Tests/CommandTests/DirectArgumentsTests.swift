import ArgumentParser
@testable import BundleFSCommands
import CatalogueCommands
import Fixtures
import Testing

/// `bundlefs query` and `symbols` read their plain command lines without swift-argument-parser
/// (issue 30): whatever `DirectArguments` reads, swift-argument-parser reads the same, and what it
/// does not read plainly is left to swift-argument-parser, errors and help included.
@Suite struct DirectArgumentsTests {
    /// swift-argument-parser's reading of the same command line, or nil when it refuses it.
    func parsed(_ arguments: [String]) -> DirectArguments.Request? {
        let rest = Array(arguments.dropFirst())
        switch arguments.first {
        case "query": return (try? QueryCommand.parseAsRoot(rest) as? QueryCommand).map { .query($0.request) }
        case "symbols": return (try? SymbolsCommand.parseAsRoot(rest) as? SymbolsCommand).map { .symbols($0.request) }
        default: return nil
        }
    }

    @Test func thePlainFormsAreReadDirectlyAsSwiftArgumentParserReadsThem() throws {
        let plain: [[String]] = [
            ["query", "com.example.app"], ["query", "com.example.app", "--json"], ["query", "--json", "org.example.*"], ["query"],
            ["query", "--kind", "application"], ["query", "--kind=application", "--lang", "de-CH,en"], ["query", "--under", "/srv/apps", "-v"],
            ["query", "--uuid", "48F282DE-1BD5-F162-67A9-DA7D51476FD4", "--arch", "arm64", "--in-archives"], ["query", "--runs-on", "macos:15.0/arm64"],
            ["query", "--plugin-type=ABC", "--extension-point", "com.apple.share-services", "--no-archives", "--catalogue", "/tmp/c.sqlite"],
            ["query", "--log-level", "debug", "x"], ["query", "--lang=de=x"], ["symbols", "48f282de1bd5f16267a9da7d51476fd4"],
            ["symbols", "A", "B", "--catalogue=/tmp/c.sqlite"], ["symbols", "--verbose", "A"],
        ]
        for arguments in plain {
            let direct = try #require(DirectArguments.parse(arguments), "\(arguments) not read directly")
            #expect(direct == parsed(arguments), "\(arguments)")
        }
        #expect(DirectArguments.parse(["query", "com.example.app", "--json"]) == .query({
            var request = QueryRequest()
            request.identifier = "com.example.app"
            request.json = true
            return request
        }()))
    }

    /// Help, `--`, repeats, missing values and unknown options are swift-argument-parser's.
    @Test func whatIsNotPlainIsLeftToSwiftArgumentParser() {
        let left: [[String]] = [
            ["query", "--help"], ["query", "-h"], ["query", "--", "-x"], ["query", "a", "b"], ["query", "--kind"], ["query", "--kind", "--json"],
            ["query", "--json", "--json"], ["query", "-v", "--verbose"], ["query", "--bogus"], ["query", "--json=yes"], ["query", "--log-level", "loud"],
            ["query", "--kind", "x", "--kind", "y"], ["query", ""], ["query", "--kind="], ["query", "-"], ["symbols"], ["symbols", "--json", "A"],
            ["symbols", "--kind", "x", "A"], ["open-with", "x"], [],
        ]
        for arguments in left { #expect(DirectArguments.parse(arguments) == nil, "\(arguments)") }
    }

    /// Words of random command lines: each declared option as a user may give it (alone, with a
    /// value attached, by its short name), values, and words that are never plain.
    static let words: [String] = {
        let options = CommandOption.allCases.flatMap { option in
            ["--\(option.name)", "--\(option.name)=\(option == .logLevel ? "warning" : "a")"] + (option.short.map { ["-\($0)"] } ?? [])
        }
        let values = ["com.example.app", "org.*", "application", "/srv", "48f282de", "x86_64", "macos:14", "/tmp/c", "de", "info", "postgresql://h/db"]
        let neverPlain = ["--", "-", "", "help", "--help", "-h", "-x", "--version", "-vv", "-v=1", "=", "--=x", "--bogus"]
        return options + values + neverPlain
    }()

    /// Thousands of command lines made of options, values and words: each one read directly is
    /// read the same by swift-argument-parser.
    @Test func randomCommandLinesAreReadAlikeOrLeft() {
        var generator = SeededGenerator(seed: 30)
        var readDirectly = 0
        // 2,000 lines: each word comes up many times, in a few seconds of a debug build.
        for _ in 0..<2_000 {
            let command = Bool.random(using: &generator) ? "query" : "symbols"
            let arguments = [command] + (0..<Int.random(in: 0...5, using: &generator)).map { _ in Self.words.randomElement(using: &generator)! }
            guard let direct = DirectArguments.parse(arguments) else { continue }
            readDirectly += 1
            #expect(direct == parsed(arguments), "\(arguments)")
        }
        // Not a test of nothing: a good share of them are plain.
        #expect(readDirectly > 200, "\(readDirectly) of 2,000 read directly")
    }

    /// The declarations are the commands' options, every one: the long names swift-argument-parser
    /// shows in each command's help are those `CommandOption` declares for it (and its own `--help`).
    @Test func theDeclaredOptionsAreTheCommandsOptions() throws {
        func shown(_ help: String) -> Set<String> {
            let words = help.split { " \n,()[]<>:;'`".contains($0) }.filter { $0.hasPrefix("--") }
            return Set(words.map { String($0.dropFirst(2).prefix { $0.isLetter || $0 == "-" }) }).subtracting(["", "help"])
        }
        for (command, help) in [("query", QueryCommand.helpMessage(columns: 10_000)), ("symbols", SymbolsCommand.helpMessage(columns: 10_000))] {
            let declared = Set(CommandOption.allCases.filter { $0.isTaken(by: command) }.map(\.name))
            #expect(shown(help) == declared, "\(command): shown \(shown(help).sorted()), declared \(declared.sorted())")
        }
        #expect(QueryCommand.helpMessage(columns: 10_000).contains("-v, --verbose"))
        #expect(LogLevel.allCases.map(\.rawValue) == CommandOption.logLevels)
    }
}
