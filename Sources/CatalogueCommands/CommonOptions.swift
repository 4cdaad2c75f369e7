package import ArgumentParser
package import BundleModel
package import Catalogue
import Foundation
package import Logging
package import SystemCalls

/// Options every command takes.
package struct CommonOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("catalogue"), help: ArgumentHelp(
        "The catalogue file.",
        discussion: "Default: $BUNDLEFS_CATALOGUE, else $XDG_CACHE_HOME/bundlefs/catalogue.sqlite, else ~/.cache/bundlefs/catalogue.sqlite.",
        valueName: "file"))
    package var cataloguePath: String?

    @Option(name: .customLong("lang"), help: ArgumentHelp(
        "The languages to show names in, most preferred first (e.g. de-CH,en).",
        discussion: "Default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG.", valueName: "tags"))
    package var languageList: String?

    @Flag(name: .shortAndLong, help: "Say more (the same as --log-level info).")
    package var verbose = false

    @Option(name: .customLong("log-level"), help: ArgumentHelp("How much to log.", valueName: "level"))
    package var logLevel: LogLevel?

    /// The options `query` and `symbols` act on, as plain values.
    package var catalogueChoice: CatalogueChoice { CatalogueChoice(cataloguePath: cataloguePath, languageList: languageList) }

    package var catalogueFile: FilePath { catalogueChoice.catalogueFile }

    package func languages() throws -> [LanguageTag] { try catalogueChoice.languages() }

    package func logger(_ label: String, defaultLevel: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = logLevel?.level ?? (verbose ? .info : defaultLevel)
        return logger
    }

    package func openCatalogue(_ mode: Catalogue.Mode) throws -> Catalogue { try catalogueChoice.openCatalogue(mode) }
}

/// Which catalogue a command reads and the languages it names things in (`--catalogue`, `--lang`,
/// else the environment): what `CommonOptions` holds for the commands that only read, as values
/// swift-argument-parser or `DirectArguments` fills.
package struct CatalogueChoice: Equatable, Sendable {
    package var cataloguePath: String?
    package var languageList: String?

    package init(cataloguePath: String? = nil, languageList: String? = nil) {
        self.cataloguePath = cataloguePath
        self.languageList = languageList
    }

    package var catalogueFile: FilePath {
        cataloguePath.map { absolutePath($0) } ?? Catalogue.defaultPath(environment: Environment.variables(named: Catalogue.pathVariables))
    }

    package func languages() throws -> [LanguageTag] {
        if let languageList {
            do { return try PreferredLanguages.parse(languageList) } catch { throw UserError("--lang: \(error)") }
        }
        return PreferredLanguages.fromEnvironment(Environment.variables(named: PreferredLanguages.variables))
    }

    package func openCatalogue(_ mode: Catalogue.Mode) throws -> Catalogue {
        do { return try Catalogue(path: catalogueFile, mode: mode) } catch let error as CatalogueError { throw UserError("\(error)") }
    }

    /// The catalogue opened for a few lookups (`query`, `symbols`).
    package func lookup() throws -> CatalogueLookup {
        do { return try CatalogueLookup(path: catalogueFile) } catch let error as CatalogueError { throw UserError("\(error)") }
    }
}

package enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case error, warning, info, debug

    package var level: Logger.Level {
        switch self {
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        }
    }
}

/// An absolute path for a user-given path (an argument, kept byte-exact), without resolving
/// symlinks.
package func absolutePath(_ path: String) -> FilePath {
    let given = FilePath(path)
    if given.isAbsolute { return given }
    return workingDirectory().appending(given)
}

/// getcwd(3), byte-exact.
package func workingDirectory() -> FilePath {
    guard let buffer = getcwd(nil, 0) else { return .root }
    defer { free(buffer) }
    return FilePath(FileNameCoding.string(cString: buffer))
}
