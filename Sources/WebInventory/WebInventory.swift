public import BundleModel
public import Catalogue
import CatalogueReading
import Codecs
import Mustache
public import SymbolServer

/// `serve-web` (SPEC.md "The web inventory"): the catalogue's pages, answered through the symbol
/// server's page seam, so that one server, with one set of limits, serves both. Read-only: every
/// page is made from a catalogue read at the request; the only files it opens are the icons
/// named by catalogue records (`IconCache`).
public final class WebInventory: Sendable {
    let catalogue: Catalogue
    /// `--lang` (else the environment's): the languages when a request's `Accept-Language` names none.
    let defaultLanguages: [LanguageTag]
    /// The host the catalogue describes, shown on the pages and in the reports.
    let host: String
    let icons: IconCache
    let templates: MustacheLibrary
    /// With `--database`: search and the Apple silicon report read the fleet's published rows.
    let fleet: (any FleetSource)?

    public init(catalogue: Catalogue, languages: [LanguageTag], host: String, fleet: (any FleetSource)? = nil, iconBudget: Int = 16 << 20) throws {
        self.catalogue = catalogue
        self.fleet = fleet
        defaultLanguages = languages
        self.host = host
        icons = IconCache(budget: iconBudget)
        var library = MustacheLibrary()
        for (name, text) in [("layout", LayoutTemplate.text), ("search", SearchTemplate.text), ("bundle", BundleTemplate.text),
                             ("message", MessageTemplate.text), ("apple-silicon", AppleSiliconTemplate.text), ("backups", BackupsTemplate.text),
                             ("errors", ErrorsTemplate.text), ("open-with", OpenWithTemplate.text), ("type", TypeTemplate.text)] {
            try library.register(text, named: name)
        }
        templates = library
    }

    /// The answer to one request the symbol routes left.
    public func answer(_ request: PageRequest) -> PageAnswer {
        guard let web = WebRequest(target: request.target) else {
            return page(status: 400, "message", ["heading": "Bad request", "message": "The address has an escape that is not UTF-8."], title: "Bad request",
                        request: nil, languages: defaultLanguages)
        }
        let asked = AcceptLanguage.languages(request.header("Accept-Language"))
        let languages = asked.isEmpty ? defaultLanguages : asked
        do {
            return try route(web, request: request, languages: languages)
        } catch {
            // The catalogue could not be read (locked past its wait, replaced, damaged): a page
            // that says so, never a crash, and a client told to come back.
            var answer = page(status: 503, "message", ["heading": "The catalogue cannot be read", "message": "\(error)"], title: "Unavailable",
                              request: web, languages: languages)
            answer.headers.append(("Retry-After", "5"))
            return answer
        }
    }

    private func route(_ web: WebRequest, request: PageRequest, languages: [LanguageTag]) throws -> PageAnswer {
        let components = web.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch components.first {
        case nil:
            return try searchPage(web, languages: languages)
        case "bundle" where components.count == 1:
            return try bundlePage(web, languages: languages)
        case "reports" where components.count == 2:
            switch components[1] {
            case "apple-silicon": return try appleSiliconPage(web, languages: languages)
            case "backups": return try backupsPage(web, languages: languages)
            case "errors": return try errorsPage(web, languages: languages)
            default: break
            }
        case "open-with" where components.count == 1:
            return try openWithPage(web, languages: languages)
        case "types" where components.count == 2:
            return try typePage(components[1], web: web, languages: languages)
        case "icons" where components.count == 2:
            return try icon(components[1], web: web, request: request)
        case "static" where components.count == 2:
            if let asset = StaticAssets.named(components[1]) { return StaticAssets.answer(asset, request: request) }
        case "api":
            if let answer = try api(Array(components.dropFirst()), web: web, languages: languages) { return answer }
        default:
            break
        }
        return notFound(web, languages: languages)
    }

    func notFound(_ web: WebRequest?, languages: [LanguageTag], _ message: String = "Nothing is served at this address.") -> PageAnswer {
        page(status: 404, "message", ["heading": "Not found", "message": message], title: "Not found", request: web, languages: languages)
    }

    /// A page: its body's template inside the layout, with the headers every page has.
    func page(status: Int = 200, _ template: String, _ values: [String: Any], title: String, request: WebRequest?,
              languages: [LanguageTag]) -> PageAnswer {
        let body = templates.render(values, withTemplate: template) ?? ""
        let kind = request?["kind"], arch = request?["arch"]
        let layout: [String: Any] = [
            "title": title, "body": body, "q": request?["q"] ?? "", "host": host,
            "lang": languages.first?.description ?? "en",
            "kinds": Self.kinds.map { ["value": $0, "selected": $0 == kind] },
            "archs": Self.architectures.map { ["value": $0, "selected": $0 == arch] },
        ]
        let html = templates.render(layout, withTemplate: "layout") ?? ""
        return PageAnswer(status: status, headers: Self.htmlHeaders, body: Array(html.utf8))
    }

    static let kinds = ["application", "framework", "bundle", "plugin", "extension", "kext", "document", "backup"]
    static let architectures = ["arm64", "arm64e", "x86_64", "i386", "ppc", "aarch64"]

    /// No script but our file, nothing from elsewhere, no framing, no referrer: the pages work on
    /// an air-gapped network and a hostile name that escaped would still run nothing.
    static let securityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    static let commonHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", securityPolicy), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
    ]
    /// Pages are the catalogue now: never kept.
    static let htmlHeaders = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")] + commonHeaders
    static let jsonHeaders = [("Content-Type", "application/json"), ("Cache-Control", "no-store")] + commonHeaders

    static func json(_ value: JSONValue) -> PageAnswer {
        PageAnswer(status: 200, headers: jsonHeaders, body: Array((value.serialized(pretty: true) + "\n").utf8))
    }

    // Links: a bundle is named by its catalogue key, looked up in the catalogue, never opened.
    static func bundleLink(_ record: BundleRecord, host: String? = nil) -> String {
        (host.map { "/bundle?host=" + WebRequest.escaped($0) + "&" } ?? "/bundle?") + "path=" + WebRequest.escaped(record.key.string)
    }

    static func iconLink(_ record: BundleRecord, size: Int) -> String? {
        guard record.icon != nil, record.archive == nil else { return nil }
        return "/icons/\(size).png?path=" + WebRequest.escaped(record.key.string)
    }
}
