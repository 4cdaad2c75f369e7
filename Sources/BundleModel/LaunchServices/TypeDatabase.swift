public import SystemCalls

/// Rule 28: the type database. The system's declarations (the table of rule 1) and every
/// catalogued application's exported and imported ones; for each identifier (compared without
/// case) the system's declaration wins over an application's, an export over an import, and
/// among equals the application first by path, so the answer is stable. Conformance is the
/// closure of the winning declarations' UTTypeConformsTo, cycles tolerated.
public struct TypeDatabase: Sendable {
    public enum Origin: String, Sendable, Hashable, Comparable {
        case system, exported, imported

        private var order: Int { [Origin.system, .exported, .imported].firstIndex(of: self)! }
        public static func < (lhs: Origin, rhs: Origin) -> Bool { lhs.order < rhs.order }
    }

    public struct Declaration: Sendable, Hashable {
        public var identifier: String
        public var conformsTo: [String]
        /// Lower-cased.
        public var extensions: [String]
        public var mimeTypes: [String]
        public var description: String?
        public var origin: Origin
        /// The application that declares it; nil for the system.
        public var declaredBy: FilePath?

        public init(identifier: String, conformsTo: [String], extensions: [String], mimeTypes: [String],
                    description: String? = nil, origin: Origin, declaredBy: FilePath? = nil) {
            self.identifier = identifier
            self.conformsTo = conformsTo
            self.extensions = extensions
            self.mimeTypes = mimeTypes
            self.description = description
            self.origin = origin
            self.declaredBy = declaredBy
        }
    }

    /// Every declaration of each type, by `key`, the winner first.
    public let declarations: [String: [Declaration]]
    /// Type keys by lower-cased extension and by lower-cased MIME type, from winning declarations.
    private let byExtension: [String: [String]]
    private let byMIMEType: [String: [String]]

    /// How types compare: without case.
    public static func key(_ identifier: String) -> String { identifier.lowercased() }

    public init(_ all: [Declaration]) {
        var grouped: [String: [Declaration]] = [:]
        for declaration in all { grouped[Self.key(declaration.identifier), default: []].append(declaration) }
        for key in grouped.keys {
            grouped[key]!.sort { a, b in
                a.origin != b.origin ? a.origin < b.origin : (a.declaredBy?.bytes ?? []).lexicographicallyPrecedes(b.declaredBy?.bytes ?? [])
            }
        }
        var byExtension: [String: [String]] = [:]
        var byMIMEType: [String: [String]] = [:]
        for key in grouped.keys.sorted() {
            let winner = grouped[key]![0]
            for ext in winner.extensions { byExtension[ext.lowercased(), default: []].append(key) }
            for mime in winner.mimeTypes { byMIMEType[mime.lowercased(), default: []].append(key) }
        }
        declarations = grouped
        self.byExtension = byExtension
        self.byMIMEType = byMIMEType
    }

    /// This database with more declarations (itself when there are none).
    public func adding(_ more: [Declaration]) -> TypeDatabase {
        more.isEmpty ? self : TypeDatabase(declarations.values.flatMap { $0 } + more)
    }

    /// The declaration that counts for `identifier`.
    public func declaration(_ identifier: String) -> Declaration? { declarations[Self.key(identifier)]?.first }

    /// The types whose declarations hold this extension (rule 28: a file's types).
    public func types(forExtension ext: String) -> [String] { byExtension[ext.lowercased()] ?? [] }

    public func types(forMIMEType mime: String) -> [String] { byMIMEType[mime.lowercased()] ?? [] }

    /// `identifier` and every type it conforms to, each with the fewest steps up the tree that
    /// reach it (0 for the type itself), in the order a breadth-first walk meets them. A type
    /// nobody declares conforms to nothing but itself; a cycle ends where it meets a type again.
    public func conformance(of identifier: String) -> [(type: String, steps: Int)] {
        conformance(ofAny: [identifier])
    }

    /// The types any of `identifiers` conforms to, each with the fewest steps from the nearest of
    /// them: one walk from all at once, linear in the types reached however many roots share a
    /// chain (a walk per root was quadratic for 4,000 types declaring one extension).
    public func conformance(ofAny identifiers: [String]) -> [(type: String, steps: Int)] {
        var found: [(type: String, steps: Int)] = []
        var seen: Set<String> = []
        for identifier in identifiers where seen.insert(Self.key(identifier)).inserted { found.append((Self.key(identifier), 0)) }
        var next = 0
        while next < found.count {
            let (type, steps) = found[next]
            next += 1
            for parent in declaration(type)?.conformsTo ?? [] where seen.insert(Self.key(parent)).inserted {
                found.append((Self.key(parent), steps + 1))
            }
        }
        return found
    }

    /// `identifier` and every type that conforms to it, directly or through parents, as keys: one
    /// walk down the reversed tree of the counting declarations, linear in them, cycles and all.
    public func typesConforming(to identifier: String) -> Set<String> {
        var children: [String: [String]] = [:]
        for (key, declarations) in self.declarations {
            for parent in declarations[0].conformsTo { children[Self.key(parent), default: []].append(key) }
        }
        var found: Set<String> = [Self.key(identifier)]
        var pending = [Self.key(identifier)]
        while let type = pending.popLast() {
            for child in children[type] ?? [] where found.insert(child).inserted { pending.append(child) }
        }
        return found
    }

    /// What a claim names, spelled as the database names it: a type as its counting declaration
    /// spells it (`Public.JPEG` claimed, `public.jpeg` answered), so the local catalogue and
    /// PostgreSQL, which both keep claims lower-cased, answer alike; a type nobody declares, and
    /// every other target, as given.
    public func spelled(_ target: LaunchClaim.Target) -> LaunchClaim.Target {
        guard case let .type(identifier) = target, let declared = declaration(identifier)?.identifier else { return target }
        return .type(declared)
    }

    public func conforms(_ identifier: String, to parent: String) -> Bool {
        conformance(of: identifier).contains { $0.type == Self.key(parent) }
    }
}

extension TypeDatabase {
    /// The system's table and the applications' declarations (rule 28).
    public init(system: SystemPackageTypes = .standard, applications: [(path: FilePath, declarations: [TypeDeclaration])]) {
        self.init(Self.declarations(of: system) + applications.flatMap { Self.declarations($0.declarations, by: $0.path) })
    }

    /// The system's table as declarations.
    public static func declarations(of system: SystemPackageTypes) -> [Declaration] {
        system.rows.map { row in
            Declaration(identifier: row.declaration.identifier, conformsTo: row.declaration.conformsTo,
                        extensions: row.declaration.extensions, mimeTypes: row.mimeTypes, description: row.description, origin: .system)
        }
    }

    public static let standardSystem = declarations(of: .standard)
    /// The system's declarations alone, as a database: built once, not per question.
    public static let standardSystemDatabase = TypeDatabase(standardSystem)

    /// An application's declarations.
    public static func declarations(_ declarations: [TypeDeclaration], by path: FilePath) -> [Declaration] {
        declarations.map { declaration in
            Declaration(identifier: declaration.identifier, conformsTo: declaration.conformsTo,
                        extensions: declaration.extensions, mimeTypes: declaration.mimeTypes,
                        description: declaration.description,
                        origin: declaration.exported ? .exported : .imported, declaredBy: path)
        }
    }
}
