/// The command lines of `query` and `symbols` in their plain forms, read without
/// swift-argument-parser: reflecting a command's property wrappers and looking up their
/// conformances took a third of a lookup (Docs/packaging.md). Whatever is not plainly one of them
/// (help, `--`, a repeated option, a value that looks like an option, a missing one, anything
/// unknown) is nil, and the complete binary's swift-argument-parser reads it, errors and all;
/// what both read, they read alike (`DirectArgumentsTests` holds them to it).
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
                case let .option(name, value):
                    switch name {
                    case "--kind": request.kind = value
                    case "--under": request.under = value
                    case "--uuid": request.uuid = value
                    case "--arch": request.arch = value
                    case "--plugin-type": request.plugInType = value
                    case "--extension-point": request.extensionPoint = value
                    case "--runs-on": request.runsOn = value
                    default: guard reader.common(name, value, &request.choice) else { return nil }
                    }
                case let .flag(name):
                    switch name {
                    case "--json": request.json = true
                    case "--in-archives": request.inArchives = true
                    case "--no-archives": request.noArchives = true
                    default: break
                    }
                }
            }
            return reader.failed ? nil : .query(request)
        case "symbols":
            var request = SymbolsRequest(uuids: [])
            while let token = reader.next() {
                switch token {
                case let .positional(text): request.uuids.append(text)
                case let .option(name, value): guard reader.common(name, value, &request.choice) else { return nil }
                case .flag: break
                }
            }
            return reader.failed || request.uuids.isEmpty ? nil : .symbols(request)
        default:
            return nil
        }
    }

    /// Whether a command's option takes a value; `--log-level` is read and has no effect on either.
    /// (Switches, not sets: a set's metadata is made at run time, at a cost a lookup notices.)
    static func takesValue(_ option: String, command: String) -> Bool {
        switch option {
        case "--catalogue", "--lang", "--log-level": true
        case "--kind", "--under", "--uuid", "--arch", "--plugin-type", "--extension-point", "--runs-on": command == "query"
        default: false
        }
    }

    static func isFlag(_ option: String, command: String) -> Bool {
        switch option {
        case "-v", "--verbose": true
        case "--json", "--in-archives", "--no-archives": command == "query"
        default: false
        }
    }

    enum Token {
        case positional(String)
        case option(String, String)
        case flag(String)
    }

    /// Splits a command's arguments into tokens, failing (nil, `failed`) on anything not plain.
    struct Reader {
        var rest: ArraySlice<String>
        let command: String
        var seen: [String] = []
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
            let name: String
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            // The same option twice, or -v and --verbose: swift-argument-parser's rules decide.
            let key = name == "-v" ? "--verbose" : name
            guard !seen.contains(key) else { return fail() }
            seen.append(key)
            if isFlag(name, command: command) {
                return value == nil ? .flag(name) : fail()
            }
            guard takesValue(name, command: command) else { return fail() }
            if value == nil {
                guard let next = rest.popFirst(), !next.hasPrefix("-") else { return fail() }
                value = next
            }
            guard let value, !value.isEmpty else { return fail() }
            if name == "--log-level", !["error", "warning", "info", "debug"].contains(value) { return fail() }
            return .option(name, value)
        }

        /// The options every command takes; false for an unknown one.
        func common(_ name: String, _ value: String, _ choice: inout CatalogueChoice) -> Bool {
            switch name {
            case "--catalogue": choice.cataloguePath = value
            case "--lang": choice.languageList = value
            case "--log-level": break
            default: return false
            }
            return true
        }

        mutating func fail() -> Token? {
            failed = true
            return nil
        }
    }
}
