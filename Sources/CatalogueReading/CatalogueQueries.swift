package import BundleModel
import Codecs
package import SystemCalls

/// The SQL a catalogue is read with, run on any connection (`RowSource`): GRDB's in `Catalogue`,
/// SQLite's own in `CatalogueLookup`. One text and one decoding for both.
package enum CatalogueQueries {
    /// The bundles matching a query, by path.
    package static func bundles(_ source: some RowSource, matching query: BundleQuery) throws -> [CataloguedBundle] {
        let (whereClause, arguments) = filter(query)
        let bundles = try fetchBundles(source, sql: "SELECT \(BundleRow.selectList) FROM bundles \(whereClause) ORDER BY path", arguments: arguments)
        guard let runsOn = query.runsOn else { return bundles }
        return bundles.filter { runsOn.admits($0.record) }
    }

    /// The first `limit` bundles matching a query, by path, and how many match in all: one scan
    /// for the ids (a search's cost is its scan), then only the listed records read (`runsOn` aside).
    package static func page(_ source: some RowSource, matching query: BundleQuery, limit: Int) throws -> (bundles: [CataloguedBundle], count: Int) {
        let (whereClause, arguments) = filter(query)
        var ids: [Int64] = []
        // `+path`: the matches are few and sorted after; SQLite would otherwise walk the whole
        // table in path order through the path index (0.11 s against 0.07 s at 50,000 bundles).
        try source.forEachRow("SELECT id FROM bundles \(whereClause) ORDER BY +path", arguments) { row in ids.append(row.integer(0) ?? 0) }
        guard !ids.isEmpty else { return ([], 0) }
        // In lookups' chunks, whose child rows are read by index: a larger set reads every
        // bundle's (2.5 s for a page of 200 at 50,000 bundles). The ids are in path order.
        var bundles: [CataloguedBundle] = []
        let listed = Array(ids.prefix(limit))
        for start in stride(from: 0, to: listed.count, by: 64) {
            let chunk = listed[start..<min(start + 64, listed.count)].map(String.init).joined(separator: ",")
            bundles += try fetchBundles(source, sql: "SELECT \(BundleRow.selectList) FROM bundles WHERE id IN (\(chunk)) ORDER BY path", arguments: [])
        }
        return (bundles, ids.count)
    }

    /// A query's WHERE clause and its values.
    static func filter(_ query: BundleQuery) -> (String, [SQLValue]) {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        func require(_ condition: String, _ values: [String] = []) {
            conditions.append(condition)
            arguments += values.map(SQLValue.text)
        }
        if let identifier = query.identifier {
            if query.identifierIsGlob {
                require("identifier LIKE ? ESCAPE '\\'", [Self.likePattern(forGlob: identifier)])
            } else {
                require("identifier = ? COLLATE NOCASE", [identifier])
            }
        }
        // Folders that only carry a bundle's extension are no bundles: listed when asked for by kind.
        if let kind = query.kind { require("kind = ?", [kind]) } else { require("kind <> 'folder'") }
        if let under = query.under { require(Self.subtreeCondition, Self.subtreeValues(under)) }
        if let uuidKey = query.uuidKey { require("id IN (SELECT bundle_id FROM binaries WHERE uuid_key = ?)", [uuidKey]) }
        if let inArchives = query.inArchives { require(inArchives ? "archive IS NOT NULL" : "archive IS NULL") }
        if let arch = query.arch { require("id IN (SELECT bundle_id FROM binaries WHERE arch = ?)", [arch]) }
        if let plugInType = query.plugInType {
            require("EXISTS (SELECT 1 FROM json_each(info, '$.CFPlugInTypes') WHERE lower(replace(key, '-', '')) = ?)", [plugInType])
        }
        if let extensionPoint = query.extensionPoint {
            require("json_extract(info, '$.NSExtension.NSExtensionPointIdentifier') = ?", [extensionPoint])
        }
        if let runsOn = query.runsOn {
            // The slices' platform narrows; versions and architectures are rule 32's, below.
            require("id IN (SELECT bundle_id FROM binaries WHERE lower(platform) = ?)", [runsOn.platform])
        }
        if let pattern = query.name {
            // `bundle_names` (schema v19): a row per name, and its trigram index.
            switch pattern {
            case let .text(forms):
                // A phrase of the text's trigrams is the text; the index folds case. A join, not a
                // nested IN: a word in every bundle ("app") lists 150,000 names, twice as fast so.
                let phrases = forms.map { "\"" + $0.replacing("\"", with: "\"\"") + "\"" }
                require("""
                    id IN (SELECT n.bundle_id FROM bundle_name_index f JOIN bundle_names n ON n.id = f.rowid WHERE bundle_name_index MATCH ?)
                    """, [phrases.joined(separator: " OR ")])
            case let .like(like): require("id IN (SELECT bundle_id FROM bundle_names WHERE name LIKE ? ESCAPE '\\')", [like])
            case let .glob(glob): require("id IN (SELECT bundle_id FROM bundle_names WHERE name GLOB ?)", [glob])
            }
        }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), arguments)
    }

    /// The archives' own errors, by archive.
    package static func archiveErrors(_ source: some RowSource, of archives: Set<FilePath>) throws -> [FilePath: String] {
        var errors: [FilePath: String] = [:]
        for archive in archives {
            try source.forEachRow("SELECT error FROM archives WHERE path = ? AND error IS NOT NULL", [.text(archive.string)]) { row in
                errors[archive] = row.text(0)
            }
        }
        return errors
    }

    /// `path = R OR path` in the half-open range (R/, R0): everything under R, using the index. The
    /// three values are `subtreeValues(R)`, which get the root right (`/`: everything).
    package static let subtreeCondition = subtree()

    /// The same for any column and placeholders (the writer's statements number theirs).
    package static func subtree(_ column: String = "path", exact: String = "?", low: String = "?", high: String = "?") -> String {
        "(\(column) = \(exact) OR (\(column) >= \(low) AND \(column) < \(high)))"
    }

    /// `select`'s rows in a subtree, by `path`, for the three `subtreeValues`: the root's row, then
    /// the range after it, merged in the primary key's order. The one condition with `ORDER BY`
    /// sorted every row in a temporary B-tree first (17 MB for the watcher's tree at 255,000
    /// directories); the range excludes its low bound, so `/` is not read twice.
    package static func orderedSubtree(_ select: String) -> String {
        "\(select) WHERE path = ? UNION ALL \(select) WHERE path > ? AND path < ? ORDER BY path"
    }

    package static func subtreeValues(_ root: FilePath) -> [String] {
        root == .root ? ["/", "/", "0"] : [root.string, root.string + "/", root.string + "0"]
    }

    package static func likePattern(forGlob glob: String) -> String {
        var pattern = ""
        for character in glob {
            switch character {
            case "*": pattern += "%"
            case "?": pattern += "_"
            case "%", "_", "\\": pattern += "\\" + String(character)
            default: pattern.append(character)
            }
        }
        return pattern
    }

    package static func fetchBundles(_ source: some RowSource, sql: String, arguments: [SQLValue], childRange: (Int64, Int64)? = nil) throws -> [CataloguedBundle] {
        var found: [CataloguedBundle] = []
        try source.forEachRow(sql, arguments) { row in found.append(CataloguedBundle(id: row.integer(0) ?? 0, record: BundleRow.record(from: row))) }
        guard !found.isEmpty else { return [] }
        var strings: [Int64: [FileName: [String: String]]] = [:]
        var problems: [Int64: [(severity: String, message: String)]] = [:]
        var binaries: [Int64: [BinarySlice]] = [:]
        // Text that may hold NUL (a value of a strings file, a message naming it) is selected as a
        // blob: read as a C string, SQLite's text would end at the first NUL.
        let stringsSQL = "SELECT bundle_id, localization, CAST(key AS BLOB), CAST(value AS BLOB) FROM localized_strings"
        let problemsSQL = "SELECT bundle_id, severity, CAST(message AS BLOB) FROM problems"
        let binariesSQL = "SELECT \(BinaryRow.selectList) FROM binaries"
        func children(_ condition: String, _ arguments: [SQLValue], ordered: (problems: String, binaries: String)) throws {
            try source.forEachRow("\(stringsSQL) \(condition)", arguments) { row in
                strings[row.integer(0) ?? 0, default: [:]][FileName(row.text(1) ?? ""), default: [:]][row.exactText(2)] = row.exactText(3)
            }
            try source.forEachRow("\(problemsSQL) \(condition) ORDER BY \(ordered.problems)", arguments) { row in
                problems[row.integer(0) ?? 0, default: []].append((row.text(1) ?? "", row.exactText(2)))
            }
            try source.forEachRow("\(binariesSQL) \(condition) ORDER BY \(ordered.binaries)", arguments) { row in
                binaries[row.integer(0) ?? 0, default: []].append(BinaryRow.slice(row))
            }
        }
        if found.count <= 64 {
            // A few bundles (a lookup): their child rows by index.
            for bundle in found { try children("WHERE bundle_id = ?", [.integer(bundle.id)], ordered: ("rowid", "slice")) }
        } else if let (low, high) = childRange {
            // A chunk of row ids: the child rows of that range.
            try children("WHERE bundle_id BETWEEN ? AND ?", [.integer(low), .integer(high)], ordered: ("rowid", "bundle_id, slice"))
        } else {
            // Many (a listing): one pass over each child table.
            try children("", [], ordered: ("rowid", "bundle_id, slice"))
        }
        return found.map { bundle in
            var bundle = bundle
            BundleRow.complete(&bundle.record, strings: strings[bundle.id] ?? [:], problems: problems[bundle.id] ?? [], binaries: binaries[bundle.id] ?? [])
            return bundle
        }
    }

    /// Which UUIDs a question reads: one, every one, or (the symbol stores' directories) those
    /// whose keys start with a prefix of hex digits, as a range of the index, not in archives.
    package enum UUIDSelection {
        case key(String)
        case all
        case prefix(String)
    }

    /// The slices with the selected UUIDs, by key, dSYMs first.
    package static func symbolMatchesByKey(_ source: some RowSource, _ selection: UUIDSelection, under: FilePath?) throws -> [String: [DebugSymbols.Match]] {
        var conditions: [String], arguments: [String]
        switch selection {
        case let .key(key): (conditions, arguments) = (["x.uuid_key = ?"], [key])
        case .all: (conditions, arguments) = (["x.uuid_key IS NOT NULL"], [])
        // Keys are lower-case hex: every key with the prefix sorts below the prefix and "g".
        case let .prefix(prefix): (conditions, arguments) = (["x.uuid_key >= ?", "x.uuid_key < ?", "b.archive IS NULL"], [prefix, prefix + "g"])
        }
        if let under {
            conditions.append(Self.subtree("b.path"))
            arguments += Self.subtreeValues(under)
        }
        var matches: [String: [DebugSymbols.Match]] = [:]
        try source.forEachRow("""
            SELECT \(BinaryRow.names.map { "x." + $0 }.joined(separator: ", ")), b.path, b.kind
            FROM binaries x JOIN bundles b ON b.id = x.bundle_id WHERE \(conditions.joined(separator: " AND "))
            """, arguments.map(SQLValue.text)) { row in
            let bundle = FilePath(row.text(BinaryRow.names.count) ?? "")
            let slice = BinaryRow.slice(row)
            guard let key = slice.uuidKey else { return }
            let isDSYM = DebugSymbols.isDSYM(name: bundle.lastComponent, kind: BundleKind(rawValue: row.text(BinaryRow.names.count + 1) ?? ""))
            matches[key, default: []].append(DebugSymbols.Match(bundle: bundle, isDSYM: isDSYM, slice: slice))
        }
        return matches.mapValues(DebugSymbols.sorted)
    }
}
