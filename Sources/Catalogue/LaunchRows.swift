public import BundleModel
import GRDB
import SystemCalls

/// What rules 28 and 29 store of an installed application: its claims, packed into its row
/// (`bundles.launch_claims`, `ApplicationClaims`; the lists of `launch_lists` are made from them,
/// `LaunchLists`), and the tags of the types it declares (`type_tags`: identifier, extension and
/// MIME type, each lower-cased), found by what is asked through their index. A declaration's whole
/// form stays in `bundles.type_declarations`. The publisher writes claims and tags as rows to
/// PostgreSQL (`bundlefs_launch_claims`, `bundlefs_type_tags`).
public enum LaunchRows {
    static let insertTagSQL = "INSERT INTO type_tags (bundle_id, kind, value, type_key) VALUES (?, ?, ?, ?)"

    /// Only installed applications claim and declare (an application inside an archive is not
    /// installed, rule 26).
    static func counts(_ record: BundleRecord) -> Bool { record.isApplication && record.archive == nil }

    public static func claims(of record: BundleRecord) -> [LaunchClaim] {
        counts(record) ? LaunchClaim.claims(in: record.infoDictionary) : []
    }

    public static func tags(of record: BundleRecord) -> [(kind: String, value: String, typeKey: String)] {
        guard counts(record) else { return [] }
        var tags: [(kind: String, value: String, typeKey: String)] = []
        for declaration in record.typeDeclarations {
            let key = TypeDatabase.key(declaration.identifier)
            tags.append(("identifier", key, key))
            tags += declaration.extensions.map { ("extension", $0.lowercased(), key) }
            tags += declaration.mimeTypes.map { ("mime", $0.lowercased(), key) }
        }
        return tags
    }

    /// How a target is stored: its kind and its value (`""` for everything).
    public static func columns(_ target: LaunchClaim.Target) -> (kind: String, value: String) {
        switch target {
        case let .type(identifier): ("type", TypeDatabase.key(identifier))
        case let .fileExtension(ext): ("extension", ext)
        case let .mimeType(mime): ("mime", mime)
        case .everything: ("everything", "")
        case let .scheme(scheme): ("scheme", scheme)
        }
    }

    public static func target(kind: String, value: String) -> LaunchClaim.Target? {
        switch kind {
        case "type": .type(value)
        case "extension": .fileExtension(value)
        case "mime": .mimeType(value)
        case "everything": .everything
        case "scheme": .scheme(value)
        default: nil
        }
    }

    static func writeTags(_ record: BundleRecord, id: Int64, tag: RawStatement) throws {
        guard counts(record) else { return }
        tag.bind(1, id)
        for (kind, value, typeKey) in tags(of: record) {
            tag.bind(2, kind)
            tag.bind(3, value)
            tag.bind(4, typeKey)
            try tag.execute()
        }
    }
}
