import BundleModel
import Catalogue
import CatalogueCommands
import Codecs
import SymbolServer
import SystemCalls

extension WebInventory {
    /// The question of `?ext=`, `?type=` or `?scheme=` (the first given), as `open-with`'s
    /// `--extension`, `--type` and `--scheme` ask it, and how to name it.
    static func question(_ web: WebRequest) -> (HandlerRanking.Question, String)? {
        if let ext = web["ext"] { return (.file(extension: Substring(ext).drop { $0 == "." }.lowercased()), "extension \(ext)") }
        if let type = web["type"] { return (.type(type), "type \(type)") }
        if let scheme = web["scheme"] { return (.scheme(scheme), "scheme \(scheme)") }
        return nil
    }

    /// The handlers and their records (for display names), best first; `all` as `--all`.
    func handlers(_ question: HandlerRanking.Question, all: Bool) throws -> ([HandlerRanking.Handler], [FilePath: BundleRecord]) {
        let handlers = try catalogue.handlers(of: question, role: nil, all: all)
        var records: [FilePath: BundleRecord] = [:]
        for bundle in try catalogue.bundles(atPaths: handlers.map(\.application.path)) { records[bundle.record.key] = bundle.record }
        return (handlers, records)
    }

    static func displayName(_ handler: HandlerRanking.Handler, _ records: [FilePath: BundleRecord], languages: [LanguageTag]) -> String {
        records[handler.application.path].map { DisplayNames.sanitized($0.displayName(for: languages), realName: $0.name.string) }
            ?? handler.application.path.lastComponent.string
    }

    /// The records `open-with --json` prints, field for field (`all=1` as `--all`).
    func openWithJSON(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        guard let (question, _) = Self.question(web) else { return Self.json(.array([])) }
        let (handlers, records) = try handlers(question, all: web["all"] != nil)
        let defaultIndex = HandlerRanking.defaultIndex(handlers, role: nil)
        return Self.json(.array(handlers.enumerated().map { index, handler in
            HandlerJSON.record(handler, displayName: Self.displayName(handler, records, languages: languages), isDefault: index == defaultIndex)
        }))
    }

    func openWithPage(_ web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        var values: [String: Any] = ["ext": web["ext"] ?? "", "type": web["type"] ?? "", "scheme": web["scheme"] ?? "", "asked": false]
        if let (question, asked) = Self.question(web) {
            let (handlers, records) = try handlers(question, all: web["all"] != nil)
            let defaultIndex = HandlerRanking.defaultIndex(handlers, role: nil)
            values["asked"] = asked
            values["rows"] = handlers.enumerated().map { index, handler -> [String: Any] in
                ["isDefault": index == defaultIndex, "link": records[handler.application.path].map { Self.bundleLink($0) } ?? "",
                 "name": Self.displayName(handler, records, languages: languages), "identifier": handler.application.identifier ?? "",
                 "version": handler.application.version ?? "", "rank": handler.claim.rank.rawValue, "role": handler.claim.role.rawValue,
                 "claim": HandlerJSON.claimName(handler.claim.target)]
            }
            values["jsonLink"] = "/api/open-with?" + web.fields.map { WebRequest.escaped($0.name) + "=" + WebRequest.escaped($0.value) }.joined(separator: "&")
            if case let .file(ext?) = question, let type = try catalogue.typeDatabase().types(forExtension: ext).first {
                values["typeLink"] = "/types/" + WebRequest.escaped(type)
                values["typeName"] = type
            }
        }
        return page("open-with", values, title: "Open with", request: web, languages: languages)
    }

    /// `/types/UTI`: the type as the system table and the catalogued applications declare it.
    func typePage(_ identifier: String, web: WebRequest, languages: [LanguageTag]) throws -> PageAnswer {
        var values: [String: Any] = ["identifier": identifier, "declared": false, "openWithLink": "/open-with?type=" + WebRequest.escaped(identifier)]
        if let declaration = try catalogue.typeDatabase().declaration(identifier) {
            values["declared"] = [
                "description": declaration.description ?? "", "origin": declaration.origin.rawValue, "declaredBy": declaration.declaredBy?.string ?? "",
                "conformsTo": declaration.conformsTo.map { ["name": $0, "link": "/types/" + WebRequest.escaped($0)] },
                "extensions": declaration.extensions.map { ["name": $0, "link": "/open-with?ext=" + WebRequest.escaped($0)] },
                "mimeTypes": declaration.mimeTypes.joined(separator: ", "),
            ] as [String: Any]
        }
        return page("type", values, title: identifier, request: web, languages: languages)
    }
}
