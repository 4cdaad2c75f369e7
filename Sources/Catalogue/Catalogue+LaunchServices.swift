public import BundleModel
import GRDB
import SystemCalls

/// Rules 28 to 30 from the catalogue: the part of the type database a question reaches, and the
/// applications whose claims can match it, each found through an index (`launch_claims`,
/// `type_tags`), so that an answer does not read every application.
extension Catalogue {
    /// The applications that open what `question` asks about, best first (rule 30).
    public func handlers(of question: HandlerRanking.Question, role: LaunchClaim.Role? = nil, all: Bool = false) throws -> [HandlerRanking.Handler] {
        try read { db in
            let types = try Self.typeDatabase(db, reaching: question)
            let matcher = HandlerRanking.Matcher(question: question, types: types)
            return HandlerRanking.handlers(of: question, among: try Self.claimingApplications(db, matcher), types: types, role: role, all: all)
        }
    }

    /// The type database with every declaration of every type the question reaches: the system's
    /// table and the installed applications' declarations of those types (rule 28).
    public func typeDatabase(reaching question: HandlerRanking.Question) throws -> TypeDatabase {
        try read { db in try Self.typeDatabase(db, reaching: question) }
    }

    /// The whole type database: the system's table and every installed application's declarations.
    public func typeDatabase() throws -> TypeDatabase {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT path, type_declarations FROM bundles WHERE id IN (SELECT DISTINCT bundle_id FROM type_tags) ORDER BY path
                """)
            return TypeDatabase(TypeDatabase.standardSystem + rows.flatMap { row in
                TypeDatabase.declarations((row[1] as String?).map(TypeDeclarationCoding.decode) ?? [], by: FilePath(row[0] as String))
            })
        }
    }

    static func typeDatabase(_ db: Database, reaching question: HandlerRanking.Question) throws -> TypeDatabase {
        let system = TypeDatabase.standardSystemDatabase
        var pending: [String] = []
        func typesDeclaring(_ kind: String, _ value: String) throws -> [String] {
            try String.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT type_key FROM type_tags WHERE kind = ? AND value = ?"),
                                arguments: [kind, value])
        }
        switch question {
        case let .file(ext):
            if let ext = ext?.lowercased(), !ext.isEmpty { pending += system.types(forExtension: ext) + (try typesDeclaring("extension", ext)) }
            pending.append("public.data")
        case .folder:
            pending.append("public.folder")
        case let .package(ext):
            pending += system.types(forExtension: ext) + (try typesDeclaring("extension", ext.lowercased())) + ["public.folder"]
        case let .type(identifier):
            pending.append(TypeDatabase.key(identifier))
        case .scheme:
            break
        }
        var declared: [TypeDatabase.Declaration] = []
        var seen = Set<String>()
        while let key = pending.popLast() {
            guard seen.insert(key).inserted else { continue }
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT path, type_declarations FROM bundles
                WHERE id IN (SELECT bundle_id FROM type_tags WHERE kind = 'identifier' AND value = ?)
                """), arguments: [key])
            var ofThisType: [TypeDatabase.Declaration] = []
            for row in rows {
                let declarations = ((row[1] as String?).map(TypeDeclarationCoding.decode) ?? []).filter { TypeDatabase.key($0.identifier) == key }
                ofThisType += TypeDatabase.declarations(declarations, by: FilePath(row[0] as String))
            }
            declared += ofThisType
            // Every declaration's parents: the database decides which one counts.
            for declaration in (system.declarations[key] ?? []) + ofThisType {
                pending += declaration.conformsTo.map(TypeDatabase.key)
            }
        }
        return TypeDatabase(TypeDatabase.standardSystem + declared)
    }

    /// The installed applications with a claim the matcher can match, with those claims.
    static func claimingApplications(_ db: Database, _ matcher: HandlerRanking.Matcher) throws -> [HandlerRanking.Application] {
        var targets: [(kind: String, value: String)] = matcher.types.keys.map { ("type", $0) }
        targets += matcher.extensions.map { ("extension", $0) }
        targets += matcher.mimeTypes.keys.map { ("mime", $0) }
        if let scheme = matcher.scheme { targets.append(("scheme", scheme)) }
        if matcher.isDocument { targets.append(("everything", "")) }
        var applications: [Int64: HandlerRanking.Application] = [:]
        // `bundles_for_launch` covers what is read of an application, so no wide bundle row is.
        let statement = try db.cachedStatement(sql: """
            SELECT b.id, b.path, b.identifier, b.version, c.role, c.rank
            FROM launch_claims c JOIN bundles b INDEXED BY bundles_for_launch ON b.id = c.bundle_id
            WHERE c.target_kind = ? AND c.target = ? AND b.kind = 'application' AND b.archive IS NULL
            """)
        for (kind, value) in targets {
            guard let target = LaunchRows.target(kind: kind, value: value) else { continue }
            let rows = try Row.fetchCursor(statement, arguments: [kind, value])
            while let row = try rows.next() {
                guard let role = LaunchClaim.Role(rawValue: row[4]), let rank = LaunchClaim.Rank(rawValue: row[5]) else { continue }
                let id: Int64 = row[0]
                let claim = LaunchClaim(target: target, role: role, rank: rank)
                if applications[id]?.claims.append(claim) == nil {
                    applications[id] = HandlerRanking.Application(path: FilePath(row[1] as String), identifier: row[2], version: row[3], claims: [claim])
                }
            }
        }
        return Array(applications.values)
    }
}
