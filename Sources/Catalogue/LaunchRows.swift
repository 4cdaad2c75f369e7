public import BundleModel
import GRDB
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The rows of rules 28 and 29 a bundle row has (schema v13): the claims of an installed
/// application (`launch_claims`, each with the application's path, identifier and version, what
/// an answer shows, and its rank's order and version key, what it ranks by) and the tags of the types it declares (`type_tags`: identifier,
/// extension and MIME type, each lower-cased), found by what is asked through their indexes. A
/// declaration's whole form stays in `bundles.type_declarations`.
/// The publisher writes the same rows to PostgreSQL (`bundlefs_launch_claims`, `bundlefs_type_tags`).
public enum LaunchRows {
    /// Claims that differ only in a type's case are one row (the key holds the lower-cased type).
    static let insertClaimSQL = """
        INSERT OR IGNORE INTO launch_claims (target_kind, target, path, role, rank, bundle_id, identifier, version, rank_order, version_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertTagSQL = "INSERT INTO type_tags (bundle_id, kind, value, type_key) VALUES (?, ?, ?, ?)"

    /// Only installed applications claim and declare (an application inside an archive is not
    /// installed, rule 26).
    static func counts(_ record: BundleRecord) -> Bool { isEnabled && record.isApplication && record.archive == nil }

    /// `BUNDLEFS_SKIP_LAUNCH_SERVICES=1` writes no rows: for `make bench` alone, which measures
    /// what the tables add to an index (Docs/benchmarks.md).
    static let isEnabled = getenv("BUNDLEFS_SKIP_LAUNCH_SERVICES").map { String(cString: $0) != "1" } ?? true

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

    /// Writes a bundle's rows with prepared statements (the writer's, or a migration's).
    static func write(_ record: BundleRecord, id: Int64, claim: RawStatement, tag: RawStatement) throws {
        try writeClaims(record, id: id, claim: claim)
        try writeTags(record, id: id, tag: tag)
    }

    static func writeClaims(_ record: BundleRecord, id: Int64, claim: RawStatement) throws {
        guard counts(record) else { return }
        claim.bind(3, record.key.string)
        claim.bind(6, id)
        claim.bind(7, record.identifier)
        claim.bind(8, record.version)
        claim.bind(10, bytes: BundleVersion.Key(record.version ?? "").bytes)
        for launchClaim in claims(of: record) {
            let (kind, value) = columns(launchClaim.target)
            claim.bind(1, kind)
            claim.bind(2, value)
            claim.bind(4, launchClaim.role.rawValue)
            claim.bind(5, launchClaim.rank.rawValue)
            claim.bind(9, Int64(launchClaim.rank.order))
            try claim.execute()
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
