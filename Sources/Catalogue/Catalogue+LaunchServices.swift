public import BundleModel
import GRDB
import SystemCalls

/// Rules 28 to 30 from the catalogue: the part of the type database a question reaches, and the
/// applications whose claims can match it, each found through an index (`launch_claims`,
/// `type_tags`), so that an answer does not read every application (`ClaimMerge`).
extension Catalogue {
    /// The applications that open what `question` asks about, best first (rule 30); the first
    /// `limit` of them only, when given (the default application: `limit` 1).
    public func handlers(of question: HandlerRanking.Question, role: LaunchClaim.Role? = nil, all: Bool = false,
                         limit: Int? = nil) throws -> [HandlerRanking.Handler] {
        try read { db in
            let types = try Self.typeDatabase(db, reaching: question)
            let matcher = HandlerRanking.Matcher(question: question, types: types)
            // In a fixed order: of an application's claims that rank alike, the first read is the one shown.
            // A type is stored lower-cased; an answer names it as its declaration spells it (as PostgreSQL's does).
            let targets = matcher.claimableTargets.sorted { LaunchRows.columns($0) < LaunchRows.columns($1) }
                .compactMap { target in matcher.match(target).map { (types.spelled(target), $0.steps, $0.isEverything) } }
            return try ClaimMerge.handlers(db, targets, role: role, all: all, limit: limit)
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
        // Each declaring application's declarations decoded once, by type, however many levels of
        // the walk name its types: an application declaring a 4,000-step chain was decoded at every
        // step (23 s for `open-with --extension txt`).
        var decoded: [Int64: (path: FilePath, byType: [String: [TypeDeclaration]])] = [:]
        return try TypeDatabase.reaching(question, typesDeclaring: { ext in
            try String.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT type_key FROM type_tags WHERE kind = 'extension' AND value = ?"),
                                arguments: [ext])
        }, declarations: { keys in
            var declared: [TypeDatabase.Declaration] = []
            for key in keys.sorted() {
                let ids = try Int64.fetchAll(db.cachedStatement(sql: """
                    SELECT id FROM bundles WHERE id IN (SELECT bundle_id FROM type_tags WHERE kind = 'identifier' AND value = ?)
                    """), arguments: [key])
                for id in ids {
                    if decoded[id] == nil {
                        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT path, type_declarations FROM bundles WHERE id = ?"),
                                                         arguments: [id]) else { continue }
                        let all = (row[1] as String?).map(TypeDeclarationCoding.decode) ?? []
                        decoded[id] = (FilePath(row[0] as String), Dictionary(grouping: all) { TypeDatabase.key($0.identifier) })
                    }
                    guard let application = decoded[id] else { continue }
                    declared += TypeDatabase.declarations(application.byType[key] ?? [], by: application.path)
                }
            }
            return declared
        })
    }
}
