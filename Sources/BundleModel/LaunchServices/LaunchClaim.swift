/// Rule 29: what one application says it opens, read from its Info dictionary: each entry of
/// CFBundleDocumentTypes claims content types, or (without LSItemContentTypes) extensions, MIME
/// types or everything; each entry of GNUstep's NSTypes claims its extensions as GNUstep's
/// make_services reads them, and its MIME types (Docs/launch-services.md); each entry of
/// CFBundleURLTypes claims URL schemes.
public struct LaunchClaim: Sendable, Hashable {
    /// What is claimed. Extensions, MIME types and schemes are lower-cased; a content type keeps
    /// its spelling (types compare without case, `TypeDatabase.key`).
    public enum Target: Sendable, Hashable {
        case type(String)
        case fileExtension(String)
        case mimeType(String)
        /// `*` among the extensions, `****` among the OS types, or `*/*` among the MIME types.
        case everything
        case scheme(String)
    }

    /// CFBundleTypeRole, compared without case.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        case editor = "Editor", viewer = "Viewer", shell = "Shell", none = "None"

        /// An absent or unknown role is `Viewer`: the least that claiming a document implies
        /// (Docs/launch-services.md).
        init(_ value: String?) {
            self = Role.allCases.first { $0.rawValue.lowercased() == value?.lowercased() } ?? .viewer
        }

        /// GNUstep's `NSRole`: absent or empty is `Editor`, as make_services reads it (rule 29).
        init(gnustep value: String?) {
            let trimmed = value?.trimmingSpaces ?? ""
            self = trimmed.isEmpty ? .editor : Role(trimmed)
        }

        /// Whether a claim of this role answers a question about `asked`: an editor can also view.
        public func serves(_ asked: Role) -> Bool { self == asked || (asked == .viewer && self == .editor) }
    }

    /// LSHandlerRank, compared without case; absent or unknown is `Default`.
    public enum Rank: String, Sendable, Hashable, CaseIterable, Comparable {
        case owner = "Owner", `default` = "Default", alternate = "Alternate", none = "None"

        init(_ value: String?) {
            self = Rank.allCases.first { $0.rawValue.lowercased() == value?.lowercased() } ?? .default
        }

        /// Owner first (a switch: `allCases` would make an array per comparison).
        public var order: Int {
            switch self {
            case .owner: 0
            case .default: 1
            case .alternate: 2
            case .none: 3
            }
        }
        public static func < (lhs: Rank, rhs: Rank) -> Bool { lhs.order < rhs.order }

        /// The rank of an `order`; nil for none.
        public init?(order: Int) {
            switch order {
            case 0: self = .owner
            case 1: self = .default
            case 2: self = .alternate
            case 3: self = .none
            default: return nil
            }
        }
    }

    public var target: Target
    public var role: Role
    public var rank: Rank

    public init(target: Target, role: Role, rank: Rank) {
        self.target = target
        self.role = role
        self.rank = rank
    }

    /// Every claim in `info`, in the order its entries declare them, each once.
    public static func claims(in info: InfoDictionary) -> [LaunchClaim] {
        var claims: [LaunchClaim] = []
        var seen = Set<LaunchClaim>()
        func add(_ target: Target, _ role: Role, _ rank: Rank) {
            let claim = LaunchClaim(target: target, role: role, rank: rank)
            if seen.insert(claim).inserted { claims.append(claim) }
        }
        // Leading dots dropped, without case; `*` claims everything.
        func addExtensions(_ values: [String], _ role: Role, _ rank: Rank) {
            for value in values {
                let trimmed = Substring(value.trimmingSpaces).drop { $0 == "." }.lowercased()
                if trimmed == "*" { add(.everything, role, rank) } else if !trimmed.isEmpty { add(.fileExtension(trimmed), role, rank) }
            }
        }
        for entry in info.raw["CFBundleDocumentTypes"]?.array ?? [] {
            guard let entry = entry.dictionary else { continue }
            let role = Role(entry["CFBundleTypeRole"]?.string)
            let rank = Rank(entry["LSHandlerRank"]?.string)
            let contentTypes = entry["LSItemContentTypes"]?.stringList.filter { !$0.isEmpty } ?? []
            if !contentTypes.isEmpty {
                // With LSItemContentTypes, the entry's extensions, MIME and OS types are ignored.
                for type in contentTypes { add(.type(type), role, rank) }
                continue
            }
            addExtensions(entry["CFBundleTypeExtensions"]?.stringList ?? [], role, rank)
            for value in entry["CFBundleTypeMIMETypes"]?.stringList ?? [] {
                let mime = value.trimmingSpaces.lowercased()
                if mime == "*" || mime == "*/*" { add(.everything, role, rank) } else if !mime.isEmpty { add(.mimeType(mime), role, rank) }
            }
            // Other OS types name classic Mac file types, which nothing on Linux carries.
            if (entry["CFBundleTypeOSTypes"]?.stringList ?? []).contains("****") { add(.everything, role, rank) }
        }
        // GNUstep's own key, which most of Debian's GNUstep applications claim with, read as
        // make_services reads it (rule 29): NSUnixExtensions only, `*` a literal extension.
        for entry in info.raw["NSTypes"]?.array ?? [] {
            guard let entry = entry.dictionary else { continue }
            let role = Role(gnustep: entry["NSRole"]?.string)
            for value in entry["NSUnixExtensions"]?.stringList ?? [] {
                let trimmed = Substring(value.trimmingSpaces).drop { $0 == "." }.lowercased()
                if !trimmed.isEmpty { add(.fileExtension(trimmed), role, .default) }
            }
            for value in entry["NSMIMETypes"]?.stringList ?? [] {
                let mime = value.trimmingSpaces.lowercased()
                if !mime.isEmpty { add(mime == "*/*" ? .everything : .mimeType(mime), role, .default) }
            }
        }
        for entry in info.raw["CFBundleURLTypes"]?.array ?? [] {
            guard let entry = entry.dictionary else { continue }
            let role = Role(entry["CFBundleTypeRole"]?.string)
            for scheme in entry["CFBundleURLSchemes"]?.stringList ?? [] {
                let lowered = scheme.trimmingSpaces.lowercased()
                if !lowered.isEmpty { add(.scheme(lowered), role, .default) }
            }
        }
        return claims
    }
}
