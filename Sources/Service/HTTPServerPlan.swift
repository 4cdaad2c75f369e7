public import BundleModel
public import SymbolServer

/// The HTTP part of a `Daemon.Plan`: where one server listens and which sets of paths it
/// answers. Whichever command asks for it (`serve-symbols`, `serve-web`, `serve`'s `symbols =`
/// and `web =`), the daemon makes it the same way (`HTTPServers`): the settings from the
/// environment (`SymbolServer.Settings.fromEnvironment`), a warning when other hosts can reach
/// it, bound before anything else starts.
public struct HTTPServerPlan: Sendable, Equatable {
    /// A set of paths a server answers; one server answers every route its plan names, on one port.
    public enum Route: String, Sendable, Hashable {
        /// debuginfod's and symbolicator's paths (`SymbolRoute`, Docs/symbols.md).
        case symbols
        /// The web inventory's pages, icons and JSON (Docs/web.md).
        case web

        /// What another host that reaches the server can read (the warning at start).
        var exposes: String {
            switch self {
            case .symbols: "the catalogued files"
            case .web: "every catalogued name and path"
            }
        }
    }

    /// What the web pages need beyond the catalogue.
    public struct WebOptions: Sendable, Equatable {
        /// The languages when a request's `Accept-Language` names none (`--lang`, `languages =`).
        public var languages: [LanguageTag] = []
        /// The host the local catalogue describes, shown on the pages; nil: this machine's name.
        public var host: String?
        /// `--database`: search and the Apple silicon report read this PostgreSQL database's
        /// published rows, every host's or `databaseHost`'s (`--host`).
        public var database: String?
        public var databaseHost: String?

        public init(languages: [LanguageTag] = [], host: String? = nil, database: String? = nil, databaseHost: String? = nil) {
            self.languages = languages
            self.host = host
            self.database = database
            self.databaseHost = databaseHost
        }
    }

    public var listen: ListenAddress
    public var routes: Set<Route>
    public var web = WebOptions()

    public init(listen: ListenAddress, routes: Set<Route>, web: WebOptions = WebOptions()) {
        self.listen = listen
        self.routes = routes
        self.web = web
    }

    /// What the logs call it: `symbols`, `symbols and web`.
    var name: String { routes.map(\.rawValue).sorted().joined(separator: " and ") }
}
