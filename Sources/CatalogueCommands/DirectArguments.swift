/// The command lines of `query` and `symbols` in their plain forms, read without
/// swift-argument-parser: reflecting a command's property wrappers and looking up their
/// conformances took a third of a lookup (Docs/packaging.md). Whatever is not plainly one of them
/// (help, `--`, a repeated option, a value that looks like an option, a missing one, anything
/// unknown) is nil, and the complete binary's swift-argument-parser reads it, errors and all;
/// what both read, they read alike (`DirectArgumentsTests` holds them to it). The options are
/// those both take their names from, `CommandOption`.
package enum DirectArguments {
    package enum Request: Equatable {
        case query(QueryRequest)
        case symbols(SymbolsRequest)
    }

    /// The request `arguments` (the command's name first) plainly make, or nil.
    package static func parse(_ arguments: [String]) -> Request? {
        guard let command = arguments.first else { return nil }
        var reader = Reader(arguments[...])
        switch command {
        case "query":
            var request = QueryRequest()
            while let token = reader.next() {
                switch token {
                case let .positional(text):
                    guard request.identifier == nil else { return nil }
                    request.identifier = text
                case let .option(option, value):
                    switch option {
                    case .kind: request.kind = value
                    case .under: request.under = value
                    case .uuid: request.uuid = value
                    case .arch: request.arch = value
                    case .plugInType: request.plugInType = value
                    case .extensionPoint: request.extensionPoint = value
                    case .runsOn: request.runsOn = value
                    case .inArchives: request.inArchives = true
                    case .noArchives: request.noArchives = true
                    case .json: request.json = true
                    default: reader.common(option, value, &request.choice)
                    }
                }
            }
            return reader.failed ? nil : .query(request)
        case "symbols":
            var request = SymbolsRequest(uuids: [])
            while let token = reader.next() {
                switch token {
                case let .positional(text): request.uuids.append(text)
                case let .option(option, value): reader.common(option, value, &request.choice)
                }
            }
            return reader.failed || request.uuids.isEmpty ? nil : .symbols(request)
        default:
            return nil
        }
    }

    enum Token {
        case positional(String)
        /// An option the command reads directly, with its value (nil for a flag).
        case option(CommandOption, String?)
    }

    /// Splits a command's arguments into tokens, failing (nil, `failed`) on anything not plain.
    struct Reader {
        var rest: ArraySlice<String>
        let command: String
        var seen: [CommandOption] = []
        var failed = false

        init(_ arguments: ArraySlice<String>) {
            rest = arguments.dropFirst()
            command = arguments.first ?? ""
        }

        mutating func next() -> Token? {
            guard !failed, let argument = rest.popFirst() else { return nil }
            guard argument.hasPrefix("-") else {
                if argument.isEmpty { return fail() }
                return .positional(argument)
            }
            let name: Substring
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = argument[..<equals]
                value = String(argument[argument.index(after: equals)...])
            } else {
                name = argument[...]
            }
            // Only what this command reads directly; the same option twice (or -v and --verbose):
            // swift-argument-parser's rules decide.
            guard let option = CommandOption(argument: String(name)), option.isReadDirectly, option.isTaken(by: command), !seen.contains(option) else { return fail() }
            seen.append(option)
            guard option.takesValue else { return value == nil ? .option(option, nil) : fail() }
            if value == nil {
                guard let next = rest.popFirst(), !next.hasPrefix("-") else { return fail() }
                value = next
            }
            guard let value, !value.isEmpty else { return fail() }
            if option == .logLevel, !CommandOption.logLevels.contains(value) { return fail() }
            return .option(option, value)
        }

        /// The options every command takes (`--log-level` and `-v` are read and have no effect on either).
        func common(_ option: CommandOption, _ value: String?, _ choice: inout CatalogueChoice) {
            switch option {
            case .catalogue: choice.cataloguePath = value
            case .lang: choice.languageList = value
            default: break
            }
        }

        mutating func fail() -> Token? {
            failed = true
            return nil
        }
    }
}
