import ArgumentParser
import BundleModel
import Catalogue
import CatalogueCommands
import Logging
import SystemCalls

/// Options every command takes.
struct CommonOptions: ParsableArguments {

    @Option(name: .declared(.catalogue), help: ArgumentHelp(
        "The catalogue file.",
        discussion: "Default: $BUNDLEFS_CATALOGUE, else $XDG_CACHE_HOME/bundlefs/catalogue.sqlite, else ~/.cache/bundlefs/catalogue.sqlite.",
        valueName: "file"))
    var cataloguePath: String?

    @Option(name: .declared(.lang), help: ArgumentHelp(
        "The languages to show names in, most preferred first (e.g. de-CH,en).",
        discussion: "Default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG.", valueName: "tags"))
    var languageList: String?

    @Flag(name: .declared(.verbose), help: "Say more (the same as --log-level info).")
    var verbose = false

    @Option(name: .declared(.logLevel), help: ArgumentHelp("How much to log.", valueName: "level"))
    var logLevel: LogLevel?

    /// The options `query` and `symbols` act on, as plain values.
    var catalogueChoice: CatalogueChoice { CatalogueChoice(cataloguePath: cataloguePath, languageList: languageList) }

    var catalogueFile: FilePath { catalogueChoice.catalogueFile }

    func languages() throws -> [LanguageTag] { try catalogueChoice.languages() }

    func logger(_ label: String, defaultLevel: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = logLevel?.level ?? (verbose ? .info : defaultLevel)
        return logger
    }

    func openCatalogue(_ mode: Catalogue.Mode) throws -> Catalogue {
        do { return try Catalogue(path: catalogueFile, mode: mode) } catch let error as CatalogueError { throw UserError("\(error)") }
    }
}

enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case error, warning, info, debug

    var level: Logger.Level {
        switch self {
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        }
    }
}

