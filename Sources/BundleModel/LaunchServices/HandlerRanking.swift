public import SystemCalls

/// Rule 30: which applications open a document, a type or a URL scheme, best first. Each
/// application counts once, with its best claim; the first of all is the default application.
public enum HandlerRanking {
    /// What is asked about. Questions are equal when their text is, byte for byte: an extension is
    /// part of a file name, and NFC and NFD twins are two extensions (Swift's `String` would make
    /// them one question, and one cached answer, where the catalogue keeps two sets of claims).
    public enum Question: Sendable, Hashable {
        /// A file named with this extension (nil: none); its types are the database's for it.
        case file(extension: String?)
        case folder
        /// A package: its types are those of its extension, and it is a folder too.
        case package(extension: String)
        case type(String)
        case scheme(String)

        private var exact: (kind: Int, text: String.UTF8View?) {
            switch self {
            case let .file(ext): (0, ext?.utf8)
            case .folder: (1, nil)
            case let .package(ext): (2, ext.utf8)
            case let .type(type): (3, type.utf8)
            case let .scheme(scheme): (4, scheme.utf8)
            }
        }

        public static func == (a: Question, b: Question) -> Bool {
            let (x, y) = (a.exact, b.exact)
            guard x.kind == y.kind else { return false }
            switch (x.text, y.text) {
            case (nil, nil): return true
            case let (p?, q?): return p.elementsEqual(q)
            default: return false
            }
        }

        public func hash(into hasher: inout Hasher) {
            let (kind, text) = exact
            hasher.combine(kind)
            hasher.combine(text == nil)
            for byte in text ?? "".utf8 { hasher.combine(byte) }
        }
    }

    /// An application as the ranking needs it.
    public struct Application: Sendable {
        public var path: FilePath
        public var identifier: String?
        public var version: String?
        /// What the ranking reads. An answer read from a catalogue leaves them out: its handler
        /// holds the claim that ranks the application, and only the claims that matched were read.
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

        public init(application: Application, claim: LaunchClaim, steps: Int, isEverything: Bool) {
            self.application = application
            self.claim = claim
            self.steps = steps
            self.isEverything = isEverything
        }
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
                guard admits(claim, role: role, all: all), let (steps, isEverything) = matcher.match(claim.target) else { continue }
                let candidate = Handler(application: application, claim: claim, steps: steps, isEverything: isEverything)
                // The same application: its version and path tie.
                if best.map({ claimPrecedes(candidate, $0) }) ?? true { best = candidate }
            }
            if let best { handlers.append(best) }
        }
        return sorted(handlers)
    }

    /// Whether a claim counts for an answer: rank `None` and role `None` (an icon, not a handler:
    /// rule 29) only with `all`; with `role`, only claims that serve it (an editor can also view).
    public static func admits(_ claim: LaunchClaim, role: LaunchClaim.Role?, all: Bool) -> Bool {
        admits(role: claim.role, rank: claim.rank, asked: role, all: all)
    }

    public static func admits(role: LaunchClaim.Role, rank: LaunchClaim.Rank, asked: LaunchClaim.Role?, all: Bool) -> Bool {
        (all || (rank != .none && role != .none)) && (asked.map(role.serves) ?? true)
    }

    /// The default application among `handlers` (rule 30's order): the first whose claim counts
    /// without `all`; nil when none does (with `all`, a rank or role `None` is never the default).
    public static func defaultIndex(_ handlers: [Handler], role: LaunchClaim.Role?) -> Int? {
        handlers.firstIndex { admits($0.claim, role: role, all: false) }
    }

    /// `handlers` in `precedes`' order.
    static func sorted(_ handlers: [Handler]) -> [Handler] {
        var sorted = handlers.sorted(by: HandlerOrderKey.placePrecedes)
        order(pathOrdered: &sorted)
        return sorted
    }

    /// Puts handlers already in path order (then host order), one per application, in
    /// `precedes`' order: the sort compares the key's integer ranks (`HandlerOrderKey.Ranks`) and
    /// the handlers are moved in place, never copied. Versions are split once per distinct string
    /// and sorted among themselves, not compared in every comparison (tokenizing two strings per
    /// comparison made thousands of handlers take hundreds of milliseconds); paths are not
    /// compared at all (a catalogue reads its claims in path order).
    public static func order(pathOrdered handlers: inout [Handler]) {
        // Fields are read through the buffer, never a handler copied out of it (a copy retains its
        // strings: thousands of handlers made that a third of an answer's time). Each distinct
        // version is hashed once per handler, into a slot that its newness fills afterwards.
        var slots: [String: Int] = [:]
        var slotOfHandler: [Int] = []
        slotOfHandler.reserveCapacity(handlers.count)
        handlers.withUnsafeBufferPointer { handlers in
            for index in handlers.indices {
                let version = handlers[index].application.version ?? ""
                if let slot = slots[version] {
                    slotOfHandler.append(slot)
                } else {
                    slots[version] = slots.count
                    slotOfHandler.append(slots.count - 1)
                }
            }
        }
        var versions = [String](repeating: "", count: slots.count)
        for (version, slot) in slots { versions[slot] = version }
        let newness = HandlerOrderKey.newness(of: versions)
        let ranks = handlers.withUnsafeBufferPointer { handlers in
            handlers.indices.map { index -> HandlerOrderKey.Ranks in
                let handler = UnsafePointer(handlers.baseAddress! + index)
                let claim = HandlerOrderKey.claim(isEverything: handler.pointee.isEverything, rank: handler.pointee.claim.rank, steps: handler.pointee.steps)
                return HandlerOrderKey.Ranks(claim: claim, newness: newness[slotOfHandler[index]], position: index)
            }
        }
        let order: [Int] = HandlerOrderKey.Ranks.fit(distinctVersions: versions.count, handlers: handlers.count)
            ? ranks.map(\.packed).sorted().map(HandlerOrderKey.Ranks.position(ofPacked:))
            : ranks.sorted().map(\.position)
        // Position i takes the handler at order[i]: each cycle of the permutation is swapped round,
        // in the buffer (whose swap moves; the array's copies, retaining every string).
        var placed = [Bool](repeating: false, count: order.count)
        handlers.withUnsafeMutableBufferPointer { handlers in
            for start in order.indices where !placed[start] {
                var current = start
                while true {
                    placed[current] = true
                    let next = order[current]
                    if next == start { break }
                    handlers.swapAt(current, next)
                    current = next
                }
            }
        }
    }

    /// Of two claims of one application (whose version and path tie), whether `a`'s comes first:
    /// the key's claim part decides.
    static func claimPrecedes(_ a: Handler, _ b: Handler) -> Bool {
        HandlerOrderKey.claim(isEverything: a.isEverything, rank: a.claim.rank, steps: a.steps)
            < HandlerOrderKey.claim(isEverything: b.isEverything, rank: b.claim.rank, steps: b.steps)
    }

    /// Rule 30's order of two handlers (`HandlerOrderKey`).
    public static func precedes(_ a: Handler, _ b: Handler) -> Bool {
        HandlerOrderKey.with(a, version: BundleVersion.Key(a.application.version ?? "")) { x in
            HandlerOrderKey.with(b, version: BundleVersion.Key(b.application.version ?? "")) { y in HandlerOrderKey.compare(x, y) < 0 }
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
            for (type, steps) in database.conformance(ofAny: roots) {
                types[type] = steps
                for mime in database.declaration(type)?.mimeTypes ?? [] where steps < (mimeTypes[mime.lowercased()] ?? .max) {
                    mimeTypes[mime.lowercased()] = steps
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
                // By bytes, as the catalogue compares them (`extensions` holds the one asked about).
                return extensions.contains { $0.utf8.elementsEqual(ext.utf8) } ? (0, false) : nil
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
