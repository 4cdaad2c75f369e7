public import SystemCalls

/// What the catalogued applications claim (rule 14), as inspection needs it: the extensions that
/// make directories packages, and the icon each claimed document package shows (rule 21).
public struct ClaimedTypes: Sendable, Equatable {
    public var extensions: Set<String>
    /// By extension: the icon of the first claim (in `ClaimResolver`'s order) that has one.
    public var icons: [String: FilePath]

    public init(extensions: Set<String> = [], icons: [String: FilePath] = [:]) {
        self.extensions = extensions
        self.icons = icons
    }

    public init(claims: [PackageClaim]) {
        var icons: [String: FilePath] = [:]
        for claim in claims where icons[claim.ext] == nil { icons[claim.ext] = claim.icon }
        self.init(extensions: Set(claims.map(\.ext)), icons: icons)
    }

    /// The extensions whose directories read differently now: claimed or unclaimed, or shown
    /// with another icon.
    public func changedExtensions(since previous: ClaimedTypes) -> Set<String> {
        var changed = extensions.symmetricDifference(previous.extensions)
        for ext in extensions.intersection(previous.extensions) where icons[ext] != previous.icons[ext] { changed.insert(ext) }
        return changed
    }
}
