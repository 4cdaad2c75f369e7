/// The named options of `query` and `symbols`, each declared once: the swift-argument-parser
/// commands of `bundlefs-full` take their names from here (`NameSpecification.declared`),
/// `DirectArguments` reads by them, and `DirectArgumentsTests` draws its random words from
/// `allCases`. (An enum and switches, not a table of strings: a lookup must not build a set's
/// metadata at run time, Docs/packaging.md.)
package enum CommandOption: CaseIterable, Sendable {
    // Every command's (`CommonOptions`).
    case catalogue, lang, logLevel, verbose
    // `query`'s.
    case kind, under, uuid, arch, plugInType, extensionPoint, runsOn, inArchives, noArchives, json
    // `query`'s and `open-with`'s (`DatabaseOptions`): PostgreSQL is only the complete binary's.
    case database, host

    /// The long name, without its dashes.
    package var name: String {
        switch self {
        case .catalogue: "catalogue"
        case .lang: "lang"
        case .logLevel: "log-level"
        case .verbose: "verbose"
        case .kind: "kind"
        case .under: "under"
        case .uuid: "uuid"
        case .arch: "arch"
        case .plugInType: "plugin-type"
        case .extensionPoint: "extension-point"
        case .runsOn: "runs-on"
        case .inArchives: "in-archives"
        case .noArchives: "no-archives"
        case .json: "json"
        case .database: "database"
        case .host: "host"
        }
    }

    /// The one-letter name, if it has one.
    package var short: Character? { self == .verbose ? "v" : nil }

    /// Whether it takes a value (an option) or stands alone (a flag).
    package var takesValue: Bool {
        switch self {
        case .verbose, .inArchives, .noArchives, .json: false
        default: true
        }
    }

    /// Whether `command` (`query` or `symbols`) takes it.
    package func isTaken(by command: String) -> Bool {
        switch self {
        case .catalogue, .lang, .logLevel, .verbose: command == "query" || command == "symbols"
        default: command == "query"
        }
    }

    /// Whether `DirectArguments` reads it; PostgreSQL's are `bundlefs-full`'s alone.
    package var isReadDirectly: Bool { self != .database && self != .host }

    /// The values `--log-level` takes (`LogLevel`'s cases, which a test holds to these).
    package static let logLevels = ["error", "warning", "info", "debug"]

    /// The option an argument (`--name` or `-v`, without a value) names, or nil.
    package init?(argument: String) {
        let bytes = argument.utf8
        let found: CommandOption?
        if bytes.starts(with: "--".utf8) {
            let long = bytes.dropFirst(2)
            found = Self.allCases.first { long.elementsEqual($0.name.utf8) }
        } else if bytes.count == 2, bytes.first == UInt8(ascii: "-") {
            found = Self.allCases.first { $0.short?.asciiValue == bytes.last }
        } else {
            found = nil
        }
        guard let found else { return nil }
        self = found
    }
}
