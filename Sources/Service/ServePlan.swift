public import BundleModel
import Foundation
public import SymbolServer
public import SystemCalls
public import Watcher

/// What `serve`'s command line gives, as values. Each one given wins over the configuration
/// file's, which wins over the default (`Daemon.Plan.serve`).
public struct ServeCommandLine: Sendable {
    /// SOURCE and MOUNTPOINT: with both, no configuration file is read.
    public var source: FilePath?
    public var mountPoint: FilePath?
    /// `--config`; else `ServeConfiguration.defaultPath`.
    public var configurationFile: FilePath?
    public var catalogue: FilePath?
    public var languages: [LanguageTag]?
    public var threads: Int?
    /// A flag: given, it turns the file's `no` into yes; not given, the file decides.
    public var allowOther = false
    public var publish: String?
    public var host: String?
    public var symbols: ListenAddress?
    public var web: ListenAddress?
    public var backend: WatchBackend?

    public init() {}
}

extension Daemon.Plan {
    /// `serve`'s plan: the command line over the configuration file over the defaults (the view
    /// cleared of a dead mount first, systemd told what happens).
    /// - Parameters:
    ///   - defaultCatalogue: the catalogue without `--catalogue` (`$BUNDLEFS_CATALOGUE`, else the
    ///     cache's); a configuration file other than `bundlefs.conf` names its own after itself.
    ///   - defaultLanguages: the environment's (`LANGUAGE`, `LC_ALL`, ...).
    ///   - environment: where the configuration file is, what `~` in it stands for, the watcher's settings.
    public static func serve(_ given: ServeCommandLine, defaultCatalogue: FilePath, defaultLanguages: [LanguageTag],
                             environment: [String: String]) throws(ConfigurationError) -> Daemon.Plan {
        let configuration: ServeConfiguration
        let catalogue: FilePath
        if let source = given.source, let mountPoint = given.mountPoint {
            configuration = ServeConfiguration(source: source, mountPoint: mountPoint)
            catalogue = given.catalogue ?? defaultCatalogue
        } else {
            let file = given.configurationFile ?? ServeConfiguration.defaultPath(environment: environment)
            configuration = try ServeConfiguration.load(file, home: FilePath(environment["HOME"] ?? NSHomeDirectory()))
            catalogue = given.catalogue ?? configuration.catalogue
                ?? ServeConfiguration.defaultCatalogue(forConfiguration: file, defaultCatalogue: defaultCatalogue)
        }
        var settings = MountSettings()
        settings.languages = given.languages ?? configuration.languages ?? defaultLanguages
        settings.threads = given.threads ?? configuration.threads
        settings.allowOther = given.allowOther || configuration.allowOther
        var plan = Daemon.Plan(roots: [configuration.source], catalogue: catalogue)
        plan.view = Daemon.ViewPlan(mountPoint: configuration.mountPoint, settings: settings)
        plan.view?.clearsDeadMount = true
        plan.publish = (given.publish ?? configuration.publish).map { Daemon.PublishPlan(url: $0, host: given.host ?? configuration.host) }
        plan.http = httpPlans(symbols: given.symbols ?? configuration.symbols, web: given.web ?? configuration.web,
                              options: HTTPServerPlan.WebOptions(languages: settings.languages, host: given.host ?? configuration.host))
        plan.notifiesSystemd = true
        plan.watch = .fromEnvironment(environment)
        plan.watch.backend = given.backend ?? configuration.backend ?? plan.watch.backend
        return plan
    }

    /// `symbols =` and `web =`: the web server answers the symbol routes too, so the same address
    /// for both is one server, not a port asked for twice.
    static func httpPlans(symbols: ListenAddress?, web: ListenAddress?, options: HTTPServerPlan.WebOptions) -> [HTTPServerPlan] {
        var plans: [HTTPServerPlan] = []
        if let web { plans.append(HTTPServerPlan(listen: web, routes: [.symbols, .web], web: options)) }
        if let symbols, symbols != web { plans.append(HTTPServerPlan(listen: symbols, routes: [.symbols])) }
        return plans
    }
}
