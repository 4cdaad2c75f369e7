package import BundleModel
package import Codecs

/// One handler as `open-with --json` prints it, and the web inventory's `/api/open-with` gives it:
/// its host when the answer spans PostgreSQL's hosts, then identifier, path, display name,
/// version, rank, role, how it claims, and `default` on the one the system would pick.
package enum HandlerJSON {
    package static func record(_ handler: HandlerRanking.Handler, displayName: String, isDefault: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = handler.application.host.map { [("host", .string($0))] } ?? []
        members += [
            ("identifier", handler.application.identifier.map(JSONValue.string) ?? .null),
            ("path", .string(handler.application.path.string)),
            ("displayName", .string(displayName)),
            ("version", handler.application.version.map(JSONValue.string) ?? .null),
            ("rank", .string(handler.claim.rank.rawValue)),
            ("role", .string(handler.claim.role.rawValue)),
            ("claim", .string(claimName(handler.claim.target))),
        ]
        if isDefault { members.append(("default", .bool(true))) }
        return .object(members)
    }

    /// How an application claims, as the record's `claim` says it.
    package static func claimName(_ target: LaunchClaim.Target) -> String {
        switch target {
        case let .type(identifier): "type \(identifier)"
        case .fileExtension: "extension"
        case .mimeType: "mime"
        case .everything: "everything"
        case .scheme: "scheme"
        }
    }
}
