import Service
import SymbolServer
import Testing
import SystemCalls

/// The configuration file: what it accepts, and one clear error for each thing it refuses.
struct ConfigurationTests {
    func parse(_ text: String) throws(ConfigurationError) -> ServeConfiguration {
        try ServeConfiguration.parse(text, file: "test.conf", home: "/home/ada")
    }

    func error(_ text: String) -> String {
        do {
            _ = try parse(text)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func everySetting() throws {
        let configuration = try parse("""
            # comment
            source = ~/Bundles
              MountPoint=/mnt/my view\t
            languages = de-CH, en
            catalogue = ~/.cache/bundlefs/mine.sqlite
            threads = 2
            allow-other = yes
            """)
        #expect(configuration.source == "/home/ada/Bundles")
        #expect(configuration.mountPoint == "/mnt/my view")
        #expect(configuration.languages?.map(\.description) == ["de-CH", "en"])
        #expect(configuration.catalogue == "/home/ada/.cache/bundlefs/mine.sqlite")
        #expect(configuration.threads == 2 && configuration.allowOther)
        let minimal = try parse("source = /a\nmountpoint = /b\n")
        #expect(minimal.languages == nil && minimal.catalogue == nil && minimal.threads == MountSettings.defaultThreads && !minimal.allowOther)
    }

    @Test func errorsNameTheLine() {
        #expect(error("source = /a\nmountpoint = /b\nsorce = /c") == "test.conf:3: unknown setting `sorce` (known: source, mountpoint, languages, catalogue, threads, allow-other, publish, host, symbols, web, backend)")
        #expect(error("source = /a\nsource = /b") == "test.conf:2: `source` is already set on line 1")
        #expect(error("source /a") == "test.conf:1: expected `key = value`, found `source /a`")
        #expect(error("source = a\nmountpoint = /b") == "test.conf:1: `source` must be an absolute path or start with `~/`, not `a`")
        #expect(error("source = /a") == "test.conf: `mountpoint` is not set")
        #expect(error("mountpoint = /a") == "test.conf: `source` is not set")
        #expect(error("source = /a\nmountpoint = /b\nthreads = 0") == "test.conf:3: `threads` must be a whole number from 1 to 64, not `0`")
        #expect(error("source = /a\nmountpoint = /b\nallow-other = maybe") == "test.conf:3: `allow-other` must be yes or no, not `maybe`")
        #expect(error("source = /a\nmountpoint = /b\nlanguages = ") == "test.conf:3: `languages` has no value")
        #expect(error("source = /a\nmountpoint = /b\nlanguages = !!").hasPrefix("test.conf:3: `languages`: "))
    }

    /// `backend` (SPEC "The watcher"): auto, fanotify or inotify; none given, the daemon chooses.
    @Test func backend() throws {
        #expect(try parse("source = /a\nmountpoint = /b\nbackend = fanotify").backend == .fanotify)
        #expect(try parse("source = /a\nmountpoint = /b\nbackend = Inotify").backend == .inotify)
        #expect(try parse("source = /a\nmountpoint = /b").backend == nil)
        #expect(error("source = /a\nmountpoint = /b\nbackend = fast") == "test.conf:3: `backend` must be auto, fanotify or inotify, not `fast`")
    }

    /// `publish` and `host` (SPEC "Many hosts"): a connection string without a password.
    @Test func publishing() throws {
        let configuration = try parse("source = /a\nmountpoint = /b\npublish = postgresql://bundlefs@db.example.com/catalogue?sslmode=verify-full\nhost = build-7")
        #expect(configuration.publish == "postgresql://bundlefs@db.example.com/catalogue?sslmode=verify-full")
        #expect(configuration.host == "build-7")
        #expect(try parse("source = /a\nmountpoint = /b\npublish = service=catalogue").publish == "service=catalogue")
        let refusal = "`publish` holds a password; put it in ~/.pgpass (or PGPASSFILE) instead, where libpq finds it"
        #expect(error("source = /a\nmountpoint = /b\npublish = postgresql://bundlefs:hunter2@db/catalogue") == "test.conf:3: " + refusal)
        #expect(error("source = /a\nmountpoint = /b\n\npublish = postgresql://db/catalogue?sslmode=require&password=hunter2") == "test.conf:4: " + refusal)
        #expect(error("source = /a\nmountpoint = /b\npublish = host=db password='hunter 2' dbname=c") == "test.conf:3: " + refusal)
        #expect(!error("source = /a\nmountpoint = /b\npublish = mysql://x:hunter2@db").contains("hunter2"))
        #expect(error("source = /a\nmountpoint = /b\nhost = ") == "test.conf:3: `host` has no value")
    }

    /// `symbols` (issue 28): where `serve` runs the HTTP symbol server; loopback by a port alone.
    @Test func symbols() throws {
        #expect(try parse("source = /a\nmountpoint = /b\nsymbols = 0.0.0.0:8002").symbols == ListenAddress(host: "0.0.0.0", port: 8002))
        #expect(try parse("source = /a\nmountpoint = /b\nsymbols = 8002").symbols == ListenAddress(host: "127.0.0.1", port: 8002))
        #expect(try parse("source = /a\nmountpoint = /b").symbols == nil)
        #expect(error("source = /a\nmountpoint = /b\nsymbols = buildhost:8002").hasPrefix("test.conf:3: `symbols` must be ADDR:PORT"))
    }

    /// `web` (issue 40): where `serve` runs the web inventory; the same address forms.
    @Test func web() throws {
        #expect(try parse("source = /a\nmountpoint = /b\nweb = 8080").web == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try parse("source = /a\nmountpoint = /b").web == nil)
        #expect(error("source = /a\nmountpoint = /b\nweb = inventory:8080").hasPrefix("test.conf:3: `web` must be ADDR:PORT"))
    }

    @Test func servicesSideBySideGetTheirOwnCatalogues() {
        let fallback: FilePath = "/home/ada/.cache/bundlefs/catalogue.sqlite"
        #expect(ServeConfiguration.defaultCatalogue(forConfiguration: "/c/bundlefs/bundlefs.conf", defaultCatalogue: fallback) == fallback)
        #expect(ServeConfiguration.defaultCatalogue(forConfiguration: "/c/bundlefs/work.conf", defaultCatalogue: fallback)
                == "/home/ada/.cache/bundlefs/work.sqlite")
        #expect(ServeConfiguration.defaultPath(environment: ["HOME": "/home/ada"]) == "/home/ada/.config/bundlefs/bundlefs.conf")
        #expect(ServeConfiguration.defaultPath(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/x"]) == "/x/bundlefs/bundlefs.conf")
    }
}
