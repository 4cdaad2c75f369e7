public import SystemCalls

/// The bundle search pattern (BUNDLES.md rule 12): for a resource path P relative to the resources
/// directory, the global `Resources/P` first, then `<chosen>.lproj/P` in the order of rule 11 with
/// `Base.lproj` right after the first chosen localization. The first that exists wins. Names are
/// case-sensitive, and P never leaves the bundle: `..` is refused, and lookups are made with
/// RESOLVE_BENEATH so no symlink can lead out.
public struct ResourceResolver: Sendable {
    public let record: BundleRecord
    let bundleRoot: ScanRoot
    /// When set, a resources directory outside the bundle is used only if it is inside this tree.
    let outerRoot: ScanRoot?

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

    public init(record: BundleRecord, within outerRoot: ScanRoot? = nil) throws {
        guard record.isBundle, record.resourcesDirectory != nil else { throw Problem.notABundle(record.path.string) }
        self.record = record
        self.outerRoot = outerRoot
        bundleRoot = try ScanRoot(path: record.path)
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

    /// The candidates in search order, as paths relative to the resources directory.
    public func candidates(for resourcePath: String, languages: [LanguageTag]) throws(Problem) -> [(relative: FilePath, localization: String?)] {
        let joined = try Self.validate(resourcePath).reduce(FilePath.here) { $0.appending($1) }
        var result: [(FilePath, String?)] = [(joined, nil)]
        for lproj in record.localizationChooser.lprojSearchOrder(for: languages) {
            result.append((FilePath(FileName(lproj + ".lproj")).appending(joined), lproj))
        }
        return result
    }

    /// The item the pattern picks, or nil when no candidate exists.
    public func resolve(_ resourcePath: String, languages: [LanguageTag]) throws(Problem) -> Resolution? {
        let resources = record.resourcesDirectory ?? .here
        // The resources directory may itself be a link leaving the bundle (Debian splits GNUstep
        // bundles between /usr/lib and /usr/share); then lookups are confined to it instead.
        let base: ScanRoot
        let prefix: FilePath
        if bundleRoot.status(resources)?.type == .directory {
            base = bundleRoot
            prefix = resources
        } else if outerRoot.map({ root in
            root.relative(record.path).flatMap { root.status($0.appending(resources))?.type } == .directory
        }) ?? true, let outside = try? ScanRoot(path: record.path.appending(resources)) {
            base = outside
            prefix = .here
        } else {
            return nil
        }
        for candidate in try candidates(for: resourcePath, languages: languages) {
            guard let status = base.status(prefix.appending(candidate.relative)),
                  status.type == .regular || status.type == .directory
            else { continue }
            return Resolution(path: record.path.appending(resources).appending(candidate.relative), localization: candidate.localization)
        }
        return nil
    }
}
