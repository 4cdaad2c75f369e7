import BundleModel
import Catalogue
import CatalogueReading
import SystemCalls

/// What `/?q=` and `/api/bundles?q=` ask (SPEC.md "The web inventory"): one box for everything a
/// reader might paste, told apart by its shape, and the kind and architecture filters.
struct Search: Sendable {
    enum Text: Equatable, Sendable {
        /// Every bundle (no `q`).
        case everything
        /// A Mach-O UUID or ELF build-id (16 hex digits or more, hyphens allowed): its key.
        case uuid(String)
        /// An absolute path: bundles at or below it.
        case path(String)
        /// `*` or `?` in it: an identifier glob, as `query` takes it.
        case glob(String)
        /// Anything else: a part of an identifier, a real name, or a display name in any of the
        /// bundle's languages, any case.
        case words(String)
    }

    var text: Text
    var kind: String?
    var arch: String?
    /// Results listed on a page; the JSON gives them all.
    static let pageLimit = 200
    /// How far a fleet's page counts its matches: past it, "more than 1,000" (Docs/web.md).
    static let fleetCountLimit = 1_000
    static let pastFleetCountLimit = "more than 1,000"

    init(q: String?, kind: String?, arch: String?) {
        let trimmed = q.map { Substring($0).trimmingCharacters(in: " \t\r\n") } ?? ""
        (self.kind, self.arch) = (kind, arch)
        if trimmed.isEmpty {
            text = .everything
        } else if let key = BinarySlice.uuidKey(trimmed), key.utf8.count >= 16 {
            text = .uuid(key)
        } else if trimmed.hasPrefix("/") {
            text = .path(trimmed)
        } else if trimmed.contains("*") || trimmed.contains("?") {
            text = .glob(trimmed)
        } else {
            text = .words(trimmed)
        }
    }

    /// The query for what the catalogue indexes (kind, architecture, UUID, path, identifier glob);
    /// words are matched by each source its own way.
    var narrowing: BundleQuery {
        var query = BundleQuery(kind: kind, arch: arch)
        switch text {
        case .everything, .words: break
        case let .uuid(key): query.uuidKey = key
        case let .path(path): query.under = FilePath(path)
        case let .glob(glob): query.identifier = glob
        }
        return query
    }

    /// The catalogue's answer now: each request reads it afresh, so a bundle the watcher has just
    /// written is on the next search. With a limit, only that many records are read, and the
    /// count of all is the catalogue's.
    func bundles(in catalogue: Catalogue, limit: Int? = nil) throws -> (bundles: [CataloguedBundle], count: Int) {
        var query = narrowing
        if case let .words(words) = text {
            let (pattern, exact) = Self.namePattern(words)
            query.name = pattern
            if !exact {
                // SQL has narrowed to candidates; Swift's case folding decides (Docs/web.md).
                let needle = words.lowercased()
                let found = try catalogue.bundles(matching: query).filter { Self.hasName($0.record, containing: needle) }
                return (limit.map { Array(found.prefix($0)) } ?? found, found.count)
            }
        }
        guard let limit else {
            let found = try catalogue.bundles(matching: query)
            return (found, found.count)
        }
        return try catalogue.bundlePage(matching: query, limit: limit)
    }

    /// The fleet's answer (`--database`), the first `limit` and how many in all, up to
    /// `fleetCountLimit + 1` with a limit: PostgreSQL matches everything, words too (by the
    /// words of each bundle's names, lower-cased, Docs/web.md).
    func bundles(in fleet: any FleetSource, limit: Int?) throws -> (bundles: [(host: String?, record: BundleRecord)], count: Int) {
        var query = narrowing
        if case let .words(words) = text { query.name = .text(NameForms.of(words)) }
        let (found, count) = try fleet.bundles(matching: query, limit: limit, countingUpTo: limit.map { _ in Self.fleetCountLimit })
        return (found.map { ($0.host, $0.record) }, count)
    }

    /// Whether one of the record's names, lower-cased, holds `needle` (the words lower-cased once
    /// by the caller): Swift's case folding, where SQL's cannot decide.
    static func hasName(_ record: BundleRecord, containing needle: String) -> Bool {
        record.searchedNames.contains { $0.lowercased().contains(needle) }
    }

    /// The pattern that finds `words` inside a name, in any case, and whether it is exact. Three
    /// characters or more are text for the catalogue's trigram index, in NFC and NFD. Shorter
    /// words are scanned for: of ASCII and letters without case a LIKE (SQLite folds ASCII case);
    /// otherwise a GLOB, each letter with case a class of its two cases (`[éÉ]`), wildcards as
    /// classes so they are text; a letter whose other case is not one letter (`ß`, `İ`) becomes
    /// `*`, and Swift's comparison then decides among the candidates.
    static func namePattern(_ words: String) -> (pattern: NamePattern, exact: Bool) {
        // NUL would end the index's query early; such words are scanned for, and Swift decides.
        let forms = NameForms.of(words), hasNUL = words.unicodeScalars.contains("\0")
        if forms[0].unicodeScalars.count >= 3, !hasNUL { return (.text(forms), true) }
        let folded = words.lowercased()
        if folded.allSatisfy({ $0.isASCII || String($0).uppercased() == String($0) }) {
            var like = "%"
            for character in folded {
                if "%_\\".contains(character) { like += "\\" }
                like.append(character)
            }
            return (.like(like + "%"), !hasNUL)
        }
        var glob = "*", exact = true
        for character in folded {
            let lower = String(character).lowercased(), upper = String(character).uppercased()
            switch character {
            case "*", "?", "[": glob += "[\(character)]"
            case _ where lower == upper: glob.append(character)
            case _ where lower.unicodeScalars.count == 1 && upper.unicodeScalars.count == 1: glob += "[\(lower)\(upper)]"
            default:
                glob += "*"
                exact = false
            }
        }
        return (.glob(glob + "*"), exact && !hasNUL)
    }
}
