public import SystemCalls

/// The bundle search pattern (BUNDLES.md rule 12): for a resource path P relative to the resources
/// directory, the global `Resources/P` first, then `<chosen>.lproj/P` in the order of rule 11 with
/// `Base.lproj` right after the first chosen localization. The first that exists wins. Names are
/// case-sensitive and P has no `..`. Symlinks are followed as CFBundle follows them (Debian links
/// GNUstep bundles' `Resources` and single resources into /usr/share), within `scope`: the whole
/// file system for `resolve`, SOURCE for the view, whose content never leads out of it.
public struct ResourceResolver: Sendable {
    public let record: BundleRecord
    let scope: ScanRoot
    /// The bundle's path relative to `scope`.
    let bundle: FilePath

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case invalidPath(String)
        case notABundle(String)

        public var description: String {
            switch self {
            case let .invalidPath(reason): reason
            case let .notABundle(path): "\(path) is not a bundle"
            }
        }
    }

    /// Without `scope`, lookups follow links anywhere in the file system.
    public init(record: BundleRecord, within scope: ScanRoot? = nil) throws {
        guard record.isBundle, record.resourcesDirectory != nil else { throw Problem.notABundle(record.key.string) }
        self.record = record
        self.scope = try scope ?? ScanRoot.fileSystemRoot()
        guard let path = record.diskPath, let bundle = self.scope.relative(path) else { throw Problem.notABundle(record.key.string) }
        self.bundle = bundle
    }

    /// What the pattern picked: the absolute path, and the lproj it came from (nil for global).
    public struct Resolution: Sendable, Equatable {
        public var path: FilePath
        public var localization: String?
    }

    /// Checks a resource path: relative, no `.` or `..` components, no `.lproj` part.
    public static func validate(_ resourcePath: String) throws(Problem) -> [FileName] {
        if resourcePath.isEmpty { throw .invalidPath("the resource path is empty") }
        let path = FilePath(resourcePath)
        if path.isAbsolute { throw .invalidPath("\"\(resourcePath)\" must be relative to the resources directory") }
        let components = path.components
        for component in components {
            if component.isDotOrDotDot {
                throw .invalidPath("\"\(resourcePath)\" may not contain '.' or '..' components")
            }
            if component.lowercasedExtension == "lproj" {
                throw .invalidPath("\"\(resourcePath)\" names an .lproj directory; give the path without it")
            }
        }
        return components
    }

    /// The places `resolve` tries, in its order, relative to the bundle: the search pattern over
    /// every resources directory (a framework that lost its `Versions/Current` link has two).
    public func candidates(for resourcePath: String, languages: [LanguageTag]) throws(Problem) -> [(relative: FilePath, localization: String?)] {
        let joined = try Self.validate(resourcePath).reduce(FilePath.here) { $0.appending($1) }
        return record.searchLevels(for: languages).map { ($0.directory.appending(joined), $0.localization) }
    }

    /// The item the pattern picks, or nil when no candidate exists.
    public func resolve(_ resourcePath: String, languages: [LanguageTag]) throws(Problem) -> Resolution? {
        for (relative, localization) in try candidates(for: resourcePath, languages: languages) {
            guard let status = scope.status(bundle.appending(relative)), status.type == .regular || status.type == .directory else { continue }
            return Resolution(path: record.key.appending(relative), localization: localization)
        }
        return nil
    }
}
