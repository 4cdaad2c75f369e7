import BundleModel
import Catalogue
import Codecs

/// The SQL of a search of the published bundles (`PublishedCatalogue.bundles(matching:)`): its
/// conditions on `bundlefs_bundles b`, their parameters, and the index ranges a page can start from.
struct PublishedSearch {
    /// An index range that holds every match (each row of a word's range, or of an identifier
    /// glob's literal beginning), so that a page can read it, sort it and test only its rows.
    struct Start {
        /// The table and the condition of the range, its pattern in a parameter.
        var table: String
        var range: String
        var pattern: String
        /// A table with several rows per bundle (words): its (host, path) are made distinct.
        var distinct: Bool
        /// The condition the range decides alone, left out when starting from it, and the
        /// parameter of the pattern it has (the range's then: one left unused has no type).
        var condition: (index: Int, parameter: String)?
    }

    private(set) var conditions: [String] = []
    private(set) var parameters: [String?] = []
    private(set) var starts: [Start] = []
    private let host: String?

    /// A range is started from when it has fewer rows than this: reading and sorting them costs
    /// less than walking the bundles in order until a page is full, which reads about
    /// `limit / (rows / bundles)` bundles, tens of thousands for a range this size in a million.
    static let startLimit = 10_000

    /// The longest words of a searched text that are looked up (a text of many words is still
    /// matched as typed): each is a subquery, and the planner's work grows with their number.
    static let wordsLookedUp = 4

    init(query: BundleQuery, host: String?, schemaVersion: Int) throws {
        self.host = host
        if let host { conditions.append("b.host = \(parameter(host))") }
        if let identifier = query.identifier {
            let key = PublishedRows.identifierKey(identifier)
            if query.identifierIsGlob {
                conditions.append("b.identifier_key LIKE \(parameter(Catalogue.likePattern(forGlob: key)))")
                // Up to the first wildcard: `identifier_key`'s pattern index reads that range.
                let literal = String(key.prefix { $0 != "*" && $0 != "?" })
                if !literal.isEmpty {
                    starts.append(Start(table: "bundlefs_bundles", range: "identifier_key LIKE", pattern: Catalogue.likePattern(forGlob: literal) + "%",
                                        distinct: false, condition: nil))
                }
            } else {
                conditions.append("b.identifier_key = \(parameter(key))")
            }
        }
        if let kind = query.kind { conditions.append("b.kind = \(parameter(kind))") }
        if let under = query.under {
            let values = Catalogue.subtreeValues(under).map { "\\x" + Hex.string(Array($0.utf8)) }
            conditions.append("(b.path = \(parameter(values[0]))::bytea OR (b.path >= \(parameter(values[1]))::bytea AND b.path < \(parameter(values[2]))::bytea))")
        }
        if let inArchives = query.inArchives { conditions.append(inArchives ? "b.in_archive" : "NOT b.in_archive") }
        if let uuidKey = query.uuidKey {
            conditions.append("(b.host, b.path) IN (SELECT host, path FROM bundlefs_binaries WHERE uuid_key = \(parameter(uuidKey)))")
        }
        if let arch = query.arch {
            conditions.append("(b.host, b.path) IN (SELECT host, path FROM bundlefs_binaries WHERE arch = \(parameter(arch)))")
        }
        if let pattern = query.name {
            // `names` (schema v4): lower-cased NFC, so any form typed finds any form written.
            guard case let .text(forms) = pattern, let text = forms.first else { throw PostgresError("a name pattern of the local catalogue's SQL") }
            let typed = PublishedRows.searchForm(text)
            // v5: each of the text's words begins a word of the names, a range of `bundlefs_name_words`
            // each; then the text as typed, in the few rows found.
            if schemaVersion >= 5 {
                for word in PublishedRows.words(typed).sorted(by: { $0.utf8.count > $1.utf8.count }).prefix(Self.wordsLookedUp) {
                    let prefix = word + "%" // letters and digits only: no wildcard of LIKE's
                    let placeholder = parameter(prefix)
                    starts.append(Start(table: "bundlefs_name_words", range: "word LIKE", pattern: prefix, distinct: true,
                                        condition: (conditions.count, placeholder)))
                    conditions.append("EXISTS (SELECT 1 FROM bundlefs_name_words w WHERE w.host = b.host AND w.path = b.path AND w.word LIKE \(placeholder))")
                }
            }
            let escaped = typed.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_")
            conditions.append("b.names LIKE \(parameter("%" + escaped + "%"))")
        }
    }

    private mutating func parameter(_ value: String) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// `WHERE` and the conditions (nothing without any), less the one at `skipping`.
    func whereClause(skipping: Int? = nil) -> String {
        let kept = conditions.enumerated().filter { $0.offset != skipping }.map(\.element)
        return kept.isEmpty ? "" : "WHERE " + kept.joined(separator: " AND ")
    }

    /// One row of each start's rows, counted up to `startLimit`, its pattern in `$1`, `$2`...: an
    /// index-only range each. Every host's rows: a `--host` reader's are fewer, never more.
    var startCountsSQL: String {
        "SELECT " + starts.indices.map { index in
            "(SELECT count(*) FROM (SELECT 1 FROM \(starts[index].table) WHERE \(starts[index].range) $\(index + 1) LIMIT \(Self.startLimit)) s)"
        }.joined(separator: ", ")
    }

    /// The page starting from `start`: its rows (host, path) sorted, each bundle among them tested
    /// in that order until `countingUpTo + 1` match (every one without it), then the first
    /// `limit + 1` of those with their records, each row with the number that matched.
    func startingFrom(_ start: Start, limit: Int, countingUpTo countLimit: Int?) -> (sql: String, parameters: [String?]) {
        var parameters = parameters
        var range = start.range + " "
        if let condition = start.condition {
            range += condition.parameter
        } else {
            parameters.append(start.pattern)
            range += "$\(parameters.count)"
        }
        if let host {
            parameters.append(host)
            range += " AND host = $\(parameters.count)"
        }
        let matched = countLimit.map { " LIMIT \(max($0, limit) + 1)" } ?? ""
        // The sorted subquery (OFFSET 0 keeps it one) is read in order, so the LIMIT stops the tests.
        let sql = """
            WITH matched AS MATERIALIZED (
                SELECT b.host, b.path
                FROM (SELECT \(start.distinct ? "DISTINCT " : "")host, path FROM \(start.table) WHERE \(range) ORDER BY host, path OFFSET 0) c
                JOIN bundlefs_bundles b ON b.host = c.host AND b.path = c.path
                \(whereClause(skipping: start.condition?.index))
                ORDER BY b.host, b.path\(matched))
            SELECT m.host, b.record, (SELECT count(*) FROM matched)
            FROM (SELECT host, path FROM matched ORDER BY host, path LIMIT \(limit + 1)) m
            JOIN bundlefs_bundles b ON b.host = m.host AND b.path = m.path
            ORDER BY m.host, m.path
            """
        return (sql, parameters)
    }
}
