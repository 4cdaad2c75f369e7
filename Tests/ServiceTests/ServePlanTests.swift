import BundleModel
import Foundation
import Service
import SymbolServer
import SystemCalls
import Testing
import TestSupport

/// `serve`'s plan (`Daemon.Plan.serve`): what the command line gives wins over the configuration
/// file, which wins over the defaults; a real file in a temporary directory.
struct ServePlanTests {
    let directory = TemporaryDirectory("serve-plan")
    let defaultCatalogue: FilePath = "/home/ada/.cache/bundlefs/catalogue.sqlite"
    let defaultLanguages = [LanguageTag("en")!]

    /// A configuration file named `name` holding `text`; its path.
    func file(_ text: String, named name: String = "bundlefs.conf") throws -> FilePath {
        let path = directory.appending(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return FilePath(path)
    }

    func plan(_ given: ServeCommandLine, environment: [String: String] = ["HOME": "/home/ada"]) throws -> Daemon.Plan {
        try Daemon.Plan.serve(given, defaultCatalogue: defaultCatalogue, defaultLanguages: defaultLanguages, environment: environment)
    }

    static let everything = """
        source = /srv/bundles
        mountpoint = ~/view
        languages = de-CH, de
        catalogue = /var/cache/served.sqlite
        threads = 2
        allow-other = yes
        publish = postgresql://db.example.com/catalogue
        host = build-7
        symbols = 127.0.0.1:8002
        """

    @Test func theFileWinsOverTheDefaults() throws {
        var given = ServeCommandLine()
        given.configurationFile = try file(Self.everything)
        let plan = try plan(given)
        #expect(plan.roots == ["/srv/bundles"] && plan.catalogue == "/var/cache/served.sqlite")
        let view = try #require(plan.view)
        #expect(view.mountPoint == "/home/ada/view" && view.clearsDeadMount)
        #expect(view.settings.languages.map(\.description) == ["de-CH", "de"])
        #expect(view.settings.threads == 2 && view.settings.allowOther)
        #expect(plan.publish == Daemon.PublishPlan(url: "postgresql://db.example.com/catalogue", host: "build-7"))
        #expect(plan.http == [HTTPServerPlan(listen: ListenAddress(host: "127.0.0.1", port: 8002), routes: [.symbols])])
        #expect(plan.notifiesSystemd)
    }

    /// `web =` (issue 40): a server answering the pages and the symbol routes, in the service's
    /// languages, with its host's name; the same address as `symbols` is that one server.
    @Test func webIsAServerOfBothRoutesAndSharesSymbolsAddress() throws {
        let web = ListenAddress(host: "127.0.0.1", port: 8080), symbols = ListenAddress(host: "127.0.0.1", port: 8002)
        let options = HTTPServerPlan.WebOptions(languages: [LanguageTag("de-CH")!, LanguageTag("de")!], host: "build-7")
        var given = ServeCommandLine()
        given.configurationFile = try file(Self.everything + "\nweb = 127.0.0.1:8080")
        #expect(try plan(given).http == [HTTPServerPlan(listen: web, routes: [.symbols, .web], web: options),
                                         HTTPServerPlan(listen: symbols, routes: [.symbols])])
        given.web = symbols
        #expect(try plan(given).http == [HTTPServerPlan(listen: symbols, routes: [.symbols, .web], web: options)], "one server, not the port twice")
    }

    @Test func theCommandLineWinsOverTheFile() throws {
        var given = ServeCommandLine()
        given.configurationFile = try file(Self.everything)
        given.catalogue = "/tmp/given.sqlite"
        given.languages = [LanguageTag("fr")!]
        given.threads = 8
        given.publish = "service=other"
        given.host = "given-host"
        given.symbols = ListenAddress(host: "127.0.0.1", port: 9000)
        let plan = try plan(given)
        #expect(plan.catalogue == "/tmp/given.sqlite")
        let settings = try #require(plan.view?.settings)
        #expect(settings.languages.map(\.description) == ["fr"] && settings.threads == 8)
        #expect(plan.publish == Daemon.PublishPlan(url: "service=other", host: "given-host"))
        #expect(plan.http.map(\.listen) == [ListenAddress(host: "127.0.0.1", port: 9000)])
        // --host alone names the file's database's rows; --publish alone keeps the file's host.
        var hostOnly = ServeCommandLine()
        hostOnly.configurationFile = given.configurationFile
        hostOnly.host = "given-host"
        #expect(try self.plan(hostOnly).publish == Daemon.PublishPlan(url: "postgresql://db.example.com/catalogue", host: "given-host"))
        var publishOnly = ServeCommandLine()
        publishOnly.configurationFile = given.configurationFile
        publishOnly.publish = "service=other"
        #expect(try self.plan(publishOnly).publish == Daemon.PublishPlan(url: "service=other", host: "build-7"))
    }

    /// `--allow-other` is a flag: given, it allows what the file does not; not given, the file decides.
    @Test func allowOtherIsEitherOne() throws {
        var given = ServeCommandLine()
        given.configurationFile = try file("source = /a\nmountpoint = /b\nallow-other = no")
        #expect(try plan(given).view?.settings.allowOther == false)
        given.allowOther = true
        #expect(try plan(given).view?.settings.allowOther == true)
    }

    @Test func whatNeitherGivesIsTheDefault() throws {
        var given = ServeCommandLine()
        given.configurationFile = try file("source = /a\nmountpoint = /b", named: "work.conf")
        let plan = try plan(given)
        // A file other than bundlefs.conf names its own catalogue after itself.
        #expect(plan.catalogue == "/home/ada/.cache/bundlefs/work.sqlite")
        let settings = try #require(plan.view?.settings)
        #expect(settings.languages == defaultLanguages && settings.threads == MountSettings.defaultThreads && !settings.allowOther)
        #expect(plan.publish == nil && plan.http.isEmpty)
        given.configurationFile = try file("source = /a\nmountpoint = /b")
        #expect(try self.plan(given).catalogue == defaultCatalogue)
    }

    /// Without --config, the file is found through the environment.
    @Test func theDefaultFileIsTheEnvironments() throws {
        let configHome = directory.appending("config")
        try FileManager.default.createDirectory(atPath: Paths.join(configHome, "bundlefs"), withIntermediateDirectories: true)
        try "source = /from-xdg\nmountpoint = /b".write(toFile: Paths.join(configHome, "bundlefs/bundlefs.conf"), atomically: true, encoding: .utf8)
        let plan = try plan(ServeCommandLine(), environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": configHome])
        #expect(plan.roots == ["/from-xdg"])
    }

    /// SOURCE and MOUNTPOINT: no file is read, not even a broken one, and only the flags apply.
    @Test func sourceAndMountPointReadNoFile() throws {
        var given = ServeCommandLine()
        given.source = "/given"
        given.mountPoint = "/mnt"
        given.threads = 3
        let environment = ["HOME": "/home/ada", "XDG_CONFIG_HOME": directory.appending("missing")]
        let plan = try plan(given, environment: environment)
        #expect(plan.roots == ["/given"] && plan.view?.mountPoint == "/mnt" && plan.catalogue == defaultCatalogue)
        #expect(plan.view?.settings.threads == 3 && plan.view?.settings.languages == defaultLanguages)
    }

    @Test func aBrokenFileIsOneLineNamingIt() throws {
        var given = ServeCommandLine()
        let broken = try file("source = /a\nmountpoint = /b\nthreads = lots")
        given.configurationFile = broken
        let error = #expect(throws: ConfigurationError.self) { try plan(given) }
        #expect(error?.description == "\(broken):3: `threads` must be a whole number from 1 to 64, not `lots`")
        given.configurationFile = FilePath(directory.appending("absent.conf"))
        #expect(throws: ConfigurationError.self) { try plan(given) }
    }
}
