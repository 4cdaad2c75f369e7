public import SystemCalls

/// Rule 30: which applications open a document, a type or a URL scheme, best first. Each
/// application counts once, with its best claim; the first of all is the default application.
public enum HandlerRanking {
    /// What is asked about.
    public enum Question: Sendable, Hashable {
        /// A file named with this extension (nil: none); its types are the database's for it.
        case file(extension: String?)
        case folder
        /// A package: its types are those of its extension, and it is a folder too.
        case package(extension: String)
        case type(String)
        case scheme(String)
    }

    /// An application as the ranking needs it.
    public struct Application: Sendable {
        public var path: FilePath
        public var identifier: String?
        public var version: String?
        public var claims: [LaunchClaim]
        /// Which catalogue it is in, for a caller that ranks several (PostgreSQL's hosts); nil for one.
        public var host: String?

        public init(path: FilePath, identifier: String?, version: String?, claims: [LaunchClaim], host: String? = nil) {
            self.path = path
            self.identifier = identifier
            self.version = version
            self.claims = claims
            self.host = host
        }
    }

    /// One application's answer: the claim that ranks it, and how far up the tree it matched.
    public struct Handler: Sendable {
        public var application: Application
        public var claim: LaunchClaim
        /// 0 for the exact type, extension, MIME type or scheme; else steps up the conformance tree.
        public var steps: Int
        /// A claim of everything (`*`, `****`, `*/*`, or of public.data, public.item, public.content).
        public var isEverything: Bool
    }

    /// Types that everything conforms to: claiming them is claiming everything (rule 30).
    static let everythingTypes: Set<String> = ["public.data", "public.item", "public.content"]

    /// The handlers of `question`, best first. Rank `None` only with `all`; `role` keeps the claims
    /// that serve it (an editor can also view).
    public static func handlers(of question: Question, among applications: [Application], types: TypeDatabase,
                                role: LaunchClaim.Role? = nil, all: Bool = false) -> [Handler] {
        let matcher = Matcher(question: question, types: types)
        var handlers: [Handler] = []
        for application in applications {
            var best: Handler?
            for claim in application.claims {
                guard all || claim.rank != .none, role.map(claim.role.serves) ?? true,
                      let (steps, isEverything) = matcher.match(claim.target)
                else { continue }
                let candidate = Handler(application: application, claim: claim, steps: steps, isEverything: isEverything)
                // The same application: its version and path tie.
                if best.map({ claimPrecedes(candidate, $0) }) ?? true { best = candidate }
            }
            if let best { handlers.append(best) }
        }
        return sorted(handlers)
    }

    /// `handlers` in `precedes`' order. Versions are split once per distinct string and sorted
    /// among themselves, not compared in every comparison of the sort (tokenizing two strings per comparison made thousands
    /// of handlers take hundreds of milliseconds), and the sort moves small keys, not handlers.
    static func sorted(_ handlers: [Handler]) -> [Handler] {
        let distinct = Set(handlers.map { $0.application.version ?? "" }).map { (version: $0, key: BundleVersion.Key($0)) }
            .sorted { BundleVersion.compare($0.key, $1.key) == .orderedDescending }
        var newness: [String: Int] = [:]
        for (index, version) in distinct.enumerated() {
            let same = index > 0 && BundleVersion.compare(distinct[index - 1].key, version.key) == .orderedSame
            newness[version.version] = same ? newness[distinct[index - 1].version]! : index
        }
        struct Key {
            var isEverything: Bool, rank: Int, steps: Int, newness: Int, index: Int
        }
        let keys = handlers.enumerated().map { index, handler in
            Key(isEverything: handler.isEverything, rank: LaunchClaim.Rank.allCases.firstIndex(of: handler.claim.rank)!, steps: handler.steps,
                newness: newness[handler.application.version ?? ""]!, index: index)
        }
        return keys.sorted { a, b in
            if a.isEverything != b.isEverything { return !a.isEverything }
            if a.rank != b.rank { return a.rank < b.rank }
            if a.steps != b.steps { return a.steps < b.steps }
            if a.newness != b.newness { return a.newness < b.newness }
            let x = handlers[a.index].application, y = handlers[b.index].application
            if x.path != y.path { return x.path < y.path }
            return (x.host ?? "") < (y.host ?? "")
        }.map { handlers[$0.index] }
    }

    /// The part of rule 30's order that looks at claims alone, for two claims of one application
    /// (whose version and path tie): specific before everything, then the rank, then fewer steps.
    static func claimPrecedes(_ a: Handler, _ b: Handler) -> Bool {
        if a.isEverything != b.isEverything { return !a.isEverything }
        if a.claim.rank != b.claim.rank { return a.claim.rank < b.claim.rank }
        return a.steps < b.steps
    }

    /// Rule 30's order: specific claims before claims of everything; then Owner, Default,
    /// Alternate, None; then fewer steps; then the higher CFBundleVersion (rule 20); then the path.
    static func precedes(_ a: Handler, _ b: Handler) -> Bool {
        if a.isEverything != b.isEverything { return !a.isEverything }
        if a.claim.rank != b.claim.rank { return a.claim.rank < b.claim.rank }
        if a.steps != b.steps { return a.steps < b.steps }
        switch BundleVersion.compare(a.application.version ?? "", b.application.version ?? "") {
        case .orderedDescending: return true
        case .orderedAscending: return false
        case .orderedSame:
            if a.application.path != b.application.path { return a.application.path < b.application.path }
            return (a.application.host ?? "") < (b.application.host ?? "")
        }
    }

    /// What a question is matched against, worked out once: what a claim must name to match.
    public struct Matcher: Sendable {
        public let question: Question
        /// Type keys with the fewest steps that reach them.
        public private(set) var types: [String: Int] = [:]
        public private(set) var extensions: Set<String> = []
        /// Lower-cased, with the steps of the type that declares them.
        public private(set) var mimeTypes: [String: Int] = [:]
        public private(set) var scheme: String?
        /// Claims of everything open documents, not folders or schemes.
        public private(set) var isDocument = false

        public init(question: Question, types database: TypeDatabase) {
            self.question = question
            var roots: [String] = []
            switch question {
            case let .file(ext):
                isDocument = true
                if let ext = ext?.lowercased(), !ext.isEmpty {
                    extensions.insert(ext)
                    roots = database.types(forExtension: ext)
                }
                if roots.isEmpty { roots = ["public.data"] }
            case .folder:
                roots = ["public.folder"]
            case let .package(ext):
                extensions.insert(ext.lowercased())
                roots = database.types(forExtension: ext) + ["public.folder"]
            case let .type(identifier):
                isDocument = !database.conforms(identifier, to: "public.directory")
                roots = [identifier]
                extensions.formUnion(database.declaration(identifier)?.extensions ?? [])
            case let .scheme(name):
                scheme = name.lowercased()
            }
            for root in roots {
                for (type, steps) in database.conformance(of: root) where steps < (types[type] ?? .max) {
                    types[type] = steps
                    for mime in database.declaration(type)?.mimeTypes ?? [] where steps < (mimeTypes[mime.lowercased()] ?? .max) {
                        mimeTypes[mime.lowercased()] = steps
                    }
                }
            }
        }

        /// Steps, and whether it is a claim of everything; nil when the claim does not match.
        public func match(_ target: LaunchClaim.Target) -> (steps: Int, isEverything: Bool)? {
            switch target {
            case let .type(identifier):
                let key = TypeDatabase.key(identifier)
                guard let steps = types[key] else { return nil }
                return (steps, HandlerRanking.everythingTypes.contains(key))
            case let .fileExtension(ext):
                return extensions.contains(ext) ? (0, false) : nil
            case let .mimeType(mime):
                return mimeTypes[mime].map { ($0, false) }
            case .everything:
                return isDocument ? (0, true) : nil
            case let .scheme(name):
                return name == scheme ? (0, false) : nil
            }
        }
    }
}
