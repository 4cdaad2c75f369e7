public import BundleModel
import Catalogue
import Codecs
import SystemCalls

/// `open-with --database`'s answer: the handlers, best first, and what printing them needs.
public struct PublishedHandlers: Sendable {
    public var handlers: [HandlerRanking.Handler]
    /// The handlers' whole records (their display names follow the asker's languages).
    public var records: [PublishedBundle]
    /// Hosts whose rows a publisher of an older schema sent, without claims: none of their
    /// applications can be in `handlers` until their next publisher sends them whole.
    public var hostsWithoutClaims: [String]
}

/// Rules 28 to 30 across hosts from `bundlefs_type_tags` and `bundlefs_launch_claims`, as the local
/// catalogue answers from its `type_tags` and `launch_claims`: only the applications that declare
/// a type the question reaches, or claim something it can match, are read.
extension PublishedCatalogue {
    /// The applications of every host (or `host`'s) that open what `question` asks about, ranked
    /// together. Throws on a database no publisher of this version migrated (it has no claims).
    public func handlers(of question: HandlerRanking.Question, host: String?, role: LaunchClaim.Role?, all: Bool) throws -> PublishedHandlers {
        guard schemaVersion >= PublishedSchema.claimsVersion else {
            throw PostgresError("""
                the database's bundlefs schema is version \(schemaVersion), without the claims open-with reads (version \
                \(PublishedSchema.claimsVersion)): publish to it with this bundlefs first (`bundlefs publish URL`, or a daemon's --publish)
                """)
        }
        var decoded: [DeclaringApplication: DecodedDeclarations] = [:]
        let types = try TypeDatabase.reaching(question, typesDeclaring: { try typesDeclaring(extension: $0, host: host) },
                                              declarations: { try declarations(of: $0, host: host, decoded: &decoded) })
        let matcher = HandlerRanking.Matcher(question: question, types: types)
        let handlers = HandlerRanking.handlers(of: question, among: try applications(claiming: matcher.claimableTargets, host: host),
                                               types: types, role: role, all: all)
        let records = try self.records(of: handlers.map { ($0.application.host ?? "", $0.application.path) })
        var hostsWithoutClaims = "SELECT host FROM bundlefs_hosts WHERE rows_version < $1"
        if host != nil { hostsWithoutClaims += " AND host = $2" }
        let stale = try connection.execute(hostsWithoutClaims + " ORDER BY host", [String(PublishedSchema.claimsVersion)] + (host.map { [$0] } ?? []))
        // Claims are kept lower-cased; an answer names a type as its declaration spells it, as the local catalogue's does.
        let spelled = handlers.map { handler in
            var handler = handler
            handler.claim.target = types.spelled(handler.claim.target)
            return handler
        }
        return PublishedHandlers(handlers: spelled, records: records,
                                 hostsWithoutClaims: stale.rows.compactMap { $0[0] })
    }

    /// The keys of application types whose declarations list `ext` (lower-cased).
    private func typesDeclaring(extension ext: String, host: String?) throws -> [String] {
        var sql = "SELECT DISTINCT type_key FROM bundlefs_type_tags WHERE kind = 'extension' AND value = $1"
        if host != nil { sql += " AND host = $2" }
        return try connection.execute(sql, [ext] + (host.map { [$0] } ?? [])).rows.compactMap { $0[0] }
    }

    /// An application that declares types, as `bundlefs_type_tags` names it (its path's bytes in hex).
    struct DeclaringApplication: Hashable {
        var host: String
        var path: String
    }

    /// An application's declarations by type key, and its path as its record keeps it.
    struct DecodedDeclarations {
        var path: FilePath
        var byType: [String: [TypeDeclaration]]
    }

    /// Applications' declarations of these types, in host then path order (the order the type
    /// database breaks ties in). Each application's record is fetched and decoded once per answer
    /// (`decoded`), however many levels of the walk reach its types: a record declaring a 4,000-step
    /// chain was decoded at every level.
    private func declarations(of keys: Set<String>, host: String?,
                              decoded: inout [DeclaringApplication: DecodedDeclarations]) throws -> [TypeDatabase.Declaration] {
        // Paths are bytea: named here by their hex.
        var sql = "SELECT DISTINCT host, encode(path, 'hex') FROM bundlefs_type_tags WHERE kind = 'identifier' AND value = ANY ($1::text[])"
        if host != nil { sql += " AND host = $2" }
        let declaring = try connection.execute(sql + " ORDER BY 1, 2", [PostgresArray.literal(keys.sorted())] + (host.map { [$0] } ?? []))
            .rows.compactMap { row in row[0].flatMap { host in row[1].map { DeclaringApplication(host: host, path: $0) } } }
        let missing = declaring.filter { decoded[$0] == nil }
        if !missing.isEmpty {
            let records = try connection.execute("""
                SELECT b.host, encode(b.path, 'hex'), b.record FROM bundlefs_bundles b
                WHERE (b.host, b.path) IN (SELECT host, decode(path, 'hex') FROM unnest($1::text[], $2::text[]) AS named (host, path))
                """, [PostgresArray.literal(missing.map(\.host)), PostgresArray.literal(missing.map(\.path))])
            for row in records.rows {
                guard let host = row[0], let path = row[1] else { continue }
                let record = try RecordCoding.decode(try PublishedRows.bytes(ofBytea: row[2]))
                decoded[DeclaringApplication(host: host, path: path)] =
                    DecodedDeclarations(path: record.key, byType: Dictionary(grouping: record.typeDeclarations) { TypeDatabase.key($0.identifier) })
            }
        }
        // One whose row went between the two reads declares nothing now.
        return declaring.flatMap { application -> [TypeDatabase.Declaration] in
            guard let found = decoded[application] else { return [] }
            return keys.sorted().flatMap { key in TypeDatabase.declarations(found.byType[key] ?? [], by: found.path) }
        }
    }

    /// The installed applications with a claim of one of `targets`, with those claims: found by
    /// the claims' key, with each application's identifier and version from its bundle row.
    private func applications(claiming targets: [LaunchClaim.Target], host: String?) throws -> [HandlerRanking.Application] {
        let columns = targets.map(LaunchRows.columns)
        var sql = """
            SELECT c.host, c.path, b.identifier, b.version, c.target_kind, c.target, c.role, c.rank
            FROM bundlefs_launch_claims c JOIN bundlefs_bundles b ON b.host = c.host AND b.path = c.path
            WHERE (c.target_kind, c.target) IN (SELECT * FROM unnest($1::text[], $2::text[]))
            """
        if host != nil { sql += " AND c.host = $3" }
        let rows = try connection.execute(sql, [PostgresArray.literal(columns.map(\.kind)), PostgresArray.literal(columns.map(\.value))]
                                              + (host.map { [$0] } ?? []))
        struct Key: Hashable {
            var host: String
            var path: [UInt8]
        }
        var applications: [Key: HandlerRanking.Application] = [:]
        for row in rows.rows {
            guard let host = row[0], let kind = row[4], let value = row[5], let target = LaunchRows.target(kind: kind, value: value),
                  let role = row[6].flatMap(LaunchClaim.Role.init(rawValue:)), let rank = row[7].flatMap(LaunchClaim.Rank.init(rawValue:))
            else { continue }
            let path = try PublishedRows.bytes(ofBytea: row[1])
            let claim = LaunchClaim(target: target, role: role, rank: rank)
            if applications[Key(host: host, path: path)]?.claims.append(claim) == nil {
                applications[Key(host: host, path: path)] = HandlerRanking.Application(
                    path: PublishedRows.path(path), identifier: row[2], version: row[3], claims: [claim], host: host)
            }
        }
        return Array(applications.values)
    }

    /// The records of these applications.
    private func records(of applications: [(host: String, path: FilePath)]) throws -> [PublishedBundle] {
        guard !applications.isEmpty else { return [] }
        let rows = try connection.execute("""
            SELECT b.host, b.record FROM bundlefs_bundles b
            WHERE (b.host, b.path) IN (SELECT h, decode(p, 'hex') FROM unnest($1::text[], $2::text[]) AS u (h, p))
            """, [PostgresArray.literal(applications.map(\.host)), PostgresArray.literal(applications.map { Hex.string(PublishedRows.key($0.path)) })])
        return try rows.rows.map { row in
            PublishedBundle(host: row[0] ?? "", record: try RecordCoding.decode(try PublishedRows.bytes(ofBytea: row[1])))
        }
    }
}
