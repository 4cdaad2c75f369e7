package import BundleModel
package import CatalogueReading
package import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

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
        cataloguePath.map { absolutePath($0) } ?? CatalogueFile.defaultPath(environment: Environment.variables(named: CatalogueFile.pathVariables))
    }

    package func languages() throws -> [LanguageTag] {
        if let languageList {
            do { return try PreferredLanguages.parse(languageList) } catch { throw UserError("--lang: \(error)") }
        }
        return PreferredLanguages.fromEnvironment(Environment.variables(named: PreferredLanguages.variables))
    }

    /// The catalogue opened for a few lookups (`query`, `symbols`).
    package func lookup() throws -> CatalogueLookup {
        do { return try CatalogueLookup(path: catalogueFile) } catch let error as CatalogueError { throw UserError("\(error)") }
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
