import BundleModel
import CatalogueCommands
import CatalogueReading
import Codecs
import SymbolServer
import SystemCalls

extension WebInventory {
    /// `/`: the search box and its results, or every bundle with the reports' links.
    func searchPage(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        // The first page asks nothing of the catalogue: light and at once, however large it is.
        guard web["q"] != nil || web["kind"] != nil || web["arch"] != nil else {
            return page("search", ["heading": "Search the catalogue", "searched": false, "home": true], title: "Inventory", request: web, languages: languages)
        }
        let search = Search(q: web["q"], kind: web["kind"], arch: web["arch"])
        let (shown, count) = try found(search, limit: Search.pageLimit)
        let results: [[String: Any]] = shown.map { host, record in
            // Another host's icon file is not on this one.
            let icon: Any = host == nil ? Self.iconLink(record, size: 32).map(HTMLText.escaped) as Any? ?? false : false
            let hostName: Any = host.map(HTMLText.escaped) ?? false
            // Escaped here, not by Mustache: the template shows them with {{{…}}} (HTMLText).
            return [
                "link": HTMLText.escaped(Self.bundleLink(record, host: host)), "icon": icon, "host": hostName,
                "name": HTMLText.escaped(record.displayName(for: languages)), "identifier": HTMLText.escaped(record.identifier ?? ""),
                "version": HTMLText.escaped(record.shortVersion ?? record.version ?? ""), "kind": HTMLText.escaped(record.kind.rawValue),
                "errors": record.errors.isEmpty ? false : record.errors.count,
            ]
        }
        let q = web["q"]
        let values: [String: Any] = [
            "heading": q.map { "Bundles matching “\($0)”" } ?? "Catalogued bundles",
            "count": count > Search.fleetCountLimit && fleet != nil ? Search.pastFleetCountLimit : "\(count)", "one": count == 1, "truncated": count > shown.count, "shown": shown.count,
            "jsonLink": "/api/bundles?" + web.fields.map { WebRequest.escaped($0.name) + "=" + WebRequest.escaped($0.value) }.joined(separator: "&"),
            "results": results, "searched": true, "home": q == nil,
        ]
        return page("search", values, title: q ?? "Inventory", request: web, languages: languages)
    }

    /// A search's answer from the local catalogue, or with `--database` the fleet's (each with its host).
    func found(_ search: Search, limit: Int?) throws -> (bundles: [(host: String?, record: BundleRecord)], count: Int) {
        if let fleet { return try search.bundles(in: fleet, limit: limit) }
        let (bundles, count) = try search.bundles(in: catalogue, limit: limit)
        return (bundles.map { (nil, $0.record) }, count)
    }

    /// The records `query --json` prints for the same question, field for field (with
    /// `--database`, `query --database --json`'s, each with its host).
    func bundlesJSON(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        let bundles = try found(Search(q: web["q"], kind: web["kind"], arch: web["arch"]), limit: nil).bundles
        let archiveErrors = fleet == nil ? try catalogue.archiveErrors(of: Set(bundles.compactMap(\.record.archive))) : [:]
        return Self.json(.array(bundles.map { host, record in
            let object = ContractJSON.object(for: record, languages: languages, archiveError: record.archive.flatMap { archiveErrors[$0] })
            guard let host, case let .object(members) = object else { return object }
            return .object(members + [("host", .string(host))])
        }))
    }

    /// `/api/...`: each page's data.
    func api(_ components: [String], web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer? {
        switch components {
        case ["bundles"]: return try bundlesJSON(web, languages: languages)
        case ["bundle"]:
            guard let bundle = try catalogued(web) else { return notFound(web, languages: languages, "No catalogued bundle has this path.") }
            let archiveError = try bundle.record.archive.flatMap { try catalogue.archiveErrors(of: [$0])[$0] }
            return Self.json(ContractJSON.object(for: bundle.record, languages: languages, detailed: true, archiveError: archiveError))
        case ["open-with"]: return try openWithJSON(web, languages: languages)
        case ["reports", "apple-silicon"]: return Self.json(.array(try rosettaRows(languages: languages).map(\.json)))
        case ["reports", "backups"]: return Self.json(.array(try backupRows(languages: languages).map(\.json)))
        case ["reports", "errors"]:
            return Self.json(.array(try bundlesWithErrors().map { ContractJSON.object(for: $0.record, languages: languages) }))
        default: return nil
        }
    }

    /// The bundle `?path=` names, if the catalogue has it; with `--database`, `?host=`'s.
    func catalogued(_ web: WebRequest) throws -> CataloguedBundle? {
        guard let path = web["path"] else { return nil }
        if let fleet {
            guard let host = web["host"] else { return nil }
            let record = try fleet.bundles(matching: BundleQuery(under: FilePath(path))).first { $0.host == host && $0.record.key.string == path }?.record
            return record.map { CataloguedBundle(id: 0, record: $0) }
        }
        return try catalogue.bundle(atPath: FilePath(path))
    }
}
