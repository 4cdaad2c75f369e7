/// What a question needs of a catalogue kept as rows (rules 28 and 29): the declarations of the
/// types it reaches, and the claim targets that can match it. A store that indexes declarations by
/// type and claims by target answers from these without reading every application.
extension TypeDatabase {
    /// The system's table and every application declaration of each type `question` reaches:
    /// the types its extension names (the system's or an application's), then up the conformance
    /// tree, a level at a time, through every declaration's parents (the database decides which
    /// counts). `typesDeclaring` gives the keys of application types listing a lower-cased
    /// extension; `declarations` the applications' declarations of a level's keys (of those only).
    public static func reaching(_ question: HandlerRanking.Question,
                                typesDeclaring: (_ fileExtension: String) throws -> [String],
                                declarations: (_ keys: Set<String>) throws -> [Declaration]) rethrows -> TypeDatabase {
        let system = standardSystemDatabase
        var pending: [String] = []
        switch question {
        case let .file(ext):
            if let ext = ext?.lowercased(), !ext.isEmpty { pending += system.types(forExtension: ext) + (try typesDeclaring(ext)) }
            pending.append("public.data")
        case .folder:
            pending.append("public.folder")
        case let .package(ext):
            pending += system.types(forExtension: ext) + (try typesDeclaring(ext.lowercased())) + ["public.folder"]
        case let .type(identifier):
            pending.append(key(identifier))
        case .scheme:
            break
        }
        var declared: [Declaration] = []
        var seen = Set<String>()
        while true {
            // Filtered, not `subtracting(seen)`: that costs the size of `seen` at every level.
            let level = Set(pending.lazy.filter { !seen.contains($0) })
            guard !level.isEmpty else { break }
            seen.formUnion(level)
            let found = try declarations(level)
            declared += found
            pending = (level.flatMap { system.declarations[$0] ?? [] } + found).flatMap { $0.conformsTo.map(key) }
        }
        return system.adding(declared)
    }
}

extension HandlerRanking.Matcher {
    /// Every target a claim can name and match: the reached types, the extensions, MIME types and
    /// scheme asked about, and everything when a document is.
    public var claimableTargets: [LaunchClaim.Target] {
        var targets: [LaunchClaim.Target] = types.keys.map { .type($0) }
        targets += extensions.map { .fileExtension($0) }
        targets += mimeTypes.keys.map { .mimeType($0) }
        if let scheme { targets.append(.scheme(scheme)) }
        if isDocument { targets.append(.everything) }
        return targets
    }
}
