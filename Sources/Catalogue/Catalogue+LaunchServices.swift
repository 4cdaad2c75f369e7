public import BundleModel
import GRDB
import SystemCalls

/// Rules 28 to 30 from the catalogue: the part of the type database a question reaches, and the
/// applications whose claims can match it, each found through an index (`launch_claims`,
/// `type_tags`), so that an answer does not read every application (`ClaimMerge`).
extension Catalogue {
    /// The applications that open what `question` asks about, best first (rule 30).
    public func handlers(of question: HandlerRanking.Question, role: LaunchClaim.Role? = nil, all: Bool = false) throws -> [HandlerRanking.Handler] {
        try read { db in
            let types = try Self.typeDatabase(db, reaching: question)
            let matcher = HandlerRanking.Matcher(question: question, types: types)
            var handlers = try ClaimMerge.handlers(db, matcher.targets, role: role, all: all)
            HandlerRanking.order(pathOrdered: &handlers)
            return handlers
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
        return system.adding(declared)
    }
}
