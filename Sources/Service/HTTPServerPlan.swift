public import SymbolServer

/// The HTTP part of a `Daemon.Plan`: where one server listens and which sets of paths it
/// answers. Whichever command asks for it (`serve-symbols`, `serve`'s `symbols =`), the daemon
/// makes it the same way (`HTTPServers`): the settings from the environment
/// (`SymbolServer.Settings.fromEnvironment`), a warning when other hosts can reach it, bound
/// before anything else starts.
public struct HTTPServerPlan: Sendable, Equatable {
    /// A set of paths a server answers. The web inventory (issue 40) is the next case; the
    /// server then answers every route its plan names, on one port.
    public enum Route: String, Sendable, Hashable {
        /// debuginfod's and symbolicator's paths (`SymbolRoute`, Docs/symbols.md).
        case symbols

        /// What another host that reaches the server can read (the warning at start).
        var exposes: String {
            switch self {
            case .symbols: "the catalogued files"
            }
        }
    }

    public var listen: ListenAddress
    public var routes: Set<Route>

    public init(listen: ListenAddress, routes: Set<Route>) {
        self.listen = listen
        self.routes = routes
    }

    /// What the logs call it: `symbols`.
    var name: String { routes.map(\.rawValue).sorted().joined(separator: " and ") }
}
