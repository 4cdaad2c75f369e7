import Codecs
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `bundlefs serve` as systemd runs it: a real process, a real notify socket, a real mount.
@Suite(.serialized) struct ServeTests {
    let directory = TemporaryDirectory("serve")
    var source: String { directory.appending("source") }

    init() { SampleTree.write(to: directory.appending("source")) }

    /// Starts `bundlefs serve` with NOTIFY_SOCKET pointing at a socket this test reads.
    func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, NotifySocket) {
        let socket = try NotifySocket(path: directory.appending("notify-\(UInt32.random(in: 0...UInt32.max)).sock"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.bundlefs)
        process.arguments = ["serve"] + arguments
        var merged = ProcessInfo.processInfo.environment
        merged["NOTIFY_SOCKET"] = socket.path
        merged["BUNDLEFS_SETTLE_MS"] = "10"
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let log = directory.appending("serve.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, socket)
    }

    /// Whether the process is gone, asking the kernel too: Foundation's `isRunning` alone has
    /// been seen to turn false while the child still ran.
    func hasExited(_ process: Process) -> Bool {
        !process.isRunning && kill(process.processIdentifier, 0) != 0
    }

    func finish(_ process: Process, mountPoint: String) {
        if !hasExited(process) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        if isMounted(mountPoint) { _ = try? Subprocess.run("/usr/bin/fusermount3", ["-uz", mountPoint]) }
    }

    @Test func readyOnlyWhenMountedThenStoppingAndACleanExit() throws {
        let mountPoint = directory.appending("mnt")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let (process, socket) = try serve([source, mountPoint, "--catalogue", directory.appending("catalogue.sqlite"), "--lang", "de"],
                                          environment: ["WATCHDOG_USEC": "400000"])
        defer { finish(process, mountPoint: mountPoint) }

        try socket.waitFor(timeout: 120, "READY=1") { $0 == "READY=1" }
        #expect(isMounted(mountPoint), "READY=1 is sent only once the view is mounted")
        #expect(try FileManager.default.contentsOfDirectory(atPath: Paths.join(mountPoint, "Applications")).contains("Schach"))
        let serving = try socket.waitFor(timeout: 10, "a status with counts") { $0.hasPrefix("STATUS=serving") }
        #expect(serving.contains("bundles in"), "\(serving)")
        try socket.waitFor(timeout: 5, "WATCHDOG=1 (WATCHDOG_USEC is set)") { $0 == "WATCHDOG=1" }

        kill(process.processIdentifier, SIGHUP)
        try socket.waitFor(timeout: 10, "the rescan's status") { $0.hasPrefix("STATUS=rescanning") }

        kill(process.processIdentifier, SIGTERM)
        try socket.waitFor(timeout: 30, "STOPPING=1") { $0 == "STOPPING=1" }
        try poll(timeout: 30, "serve to exit") { hasExited(process) }
        #expect(process.terminationStatus == 0)
        #expect(!isMounted(mountPoint), "the view is unmounted on SIGTERM")
    }

    /// The configuration file's settings, `publish` and `host` among them (a real PostgreSQL).
    @Test func withoutArgumentsItServesTheConfiguration() throws {
        let server = try PostgresServer()
        let mountPoint = directory.appending("configured mount")
        let configHome = directory.appending("config")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: Paths.join(configHome, "bundlefs"), withIntermediateDirectories: true)
        try """
            # served by the test
            source = \(source)
            mountpoint = \(mountPoint)
            languages = de-CH, en
            publish = \(server.url)
            host = served
            """.write(toFile: Paths.join(configHome, "bundlefs/bundlefs.conf"), atomically: true, encoding: .utf8)
        let cache = directory.appending("cache")
        let (process, socket) = try serve([], environment: ["XDG_CONFIG_HOME": configHome, "XDG_CACHE_HOME": cache,
                                                            "BUNDLEFS_CATALOGUE": "", "LANG": "C"])
        defer { finish(process, mountPoint: mountPoint) }
        try socket.waitFor(timeout: 120, "READY=1") { $0 == "READY=1" }
        #expect(try FileManager.default.contentsOfDirectory(atPath: Paths.join(mountPoint, "Applications")).contains("Schach"),
                "the configuration's languages apply")
        #expect(FileManager.default.fileExists(atPath: Paths.join(cache, "bundlefs/catalogue.sqlite")), "the default catalogue")
        let local = try Subprocess.bundlefs(["query", "--json"], catalogue: Paths.join(cache, "bundlefs/catalogue.sqlite")).standardOutput
        let bundles = try JSONValue.parse(local).arrayValue?.count ?? 0
        #expect(bundles > 20)
        // Folders named like bundles (the sample's Oddities/Empty.app) are published too; query lists them by kind.
        let folders = try JSONValue.parse(try Subprocess.bundlefs(["query", "--json", "--kind", "folder"],
                                                                  catalogue: Paths.join(cache, "bundlefs/catalogue.sqlite")).standardOutput).arrayValue?.count ?? 0
        try poll(timeout: 30, "the configuration's publish to reach PostgreSQL") {
            try server.psql("SELECT count(*) FROM bundlefs_bundles WHERE host = 'served'") == "\(bundles + folders)"
        }
        kill(process.processIdentifier, SIGINT)
        try poll(timeout: 30, "serve to exit") { hasExited(process) }
        #expect(process.terminationStatus == 0)
        #expect(!isMounted(mountPoint))
    }

    /// `symbols = ADDR:PORT` (issue 28): the HTTP symbol server runs beside the view, from the
    /// same catalogue, and stops with the service.
    @Test func symbolsAreServedBesideTheView() throws {
        let mountPoint = directory.appending("symbols-mnt")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let port = freeLoopbackPort()
        let (process, socket) = try serve([source, mountPoint, "--catalogue", directory.appending("symbols.sqlite"), "--symbols", "127.0.0.1:\(port)"])
        defer { finish(process, mountPoint: mountPoint) }
        try socket.waitFor(timeout: 120, "READY=1") { $0 == "READY=1" }
        let url = "http://127.0.0.1:\(port)/buildid/48F282DE1BD5F16267A9DA7D51476FD4/debuginfo"
        let fetched = try Subprocess.run("/usr/bin/curl", ["-s", "-f", "-o", directory.appending("fetched"), url])
        #expect(fetched.status == 0, "\(fetched)")
        let dwarf = FileManager.default.contents(atPath: Paths.join(source, "Developer/Chess.app.dSYM/Contents/Resources/DWARF/Chess"))
        let executable = FileManager.default.contents(atPath: Paths.join(source, "Applications/Chess.app/Contents/MacOS/Chess"))
        #expect(FileManager.default.contents(atPath: directory.appending("fetched")) == dwarf)
        // The sample's universal executable and the dSYM of its arm64 slice, in the view's layouts
        // too, and the same bytes over HTTP's.
        let native = Paths.join(mountPoint, ".bundlefs/symbols/native/48F2/82DE/1BD5/F162/67A9/DA7D51476FD4")
        #expect(FileManager.default.contents(atPath: native) == dwarf)
        #expect(FileManager.default.contents(atPath: native + ".app") == executable)
        #expect(FileManager.default.contents(atPath: Paths.join(mountPoint, ".bundlefs/symbols/unified/48/f282de1bd5f16267a9da7d51476fd4/executable")) == executable)
        let overHTTP = try Subprocess.run("/usr/bin/curl", ["-s", "-f", "-o", directory.appending("fetched.app"),
                                                            "http://127.0.0.1:\(port)/native/48F2/82DE/1BD5/F162/67A9/DA7D51476FD4.app"])
        #expect(overHTTP.status == 0 && FileManager.default.contents(atPath: directory.appending("fetched.app")) == executable)
        kill(process.processIdentifier, SIGTERM)
        try poll(timeout: 30, "serve to exit") { hasExited(process) }
        #expect(process.terminationStatus == 0)
        #expect(try Subprocess.run("/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", url]).status != 0, "the server stops with the service")
    }

    /// `web = ADDR:PORT` (issue 40): the web inventory runs beside the view and the watcher, from
    /// the same catalogue, so an application added while `serve` runs is on the next search.
    @Test func webIsServedBesideTheViewAndSeesNewApplications() throws {
        let mountPoint = directory.appending("web-mnt")
        let configHome = directory.appending("web-config")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: Paths.join(configHome, "bundlefs"), withIntermediateDirectories: true)
        let port = freeLoopbackPort()
        try """
            source = \(source)
            mountpoint = \(mountPoint)
            catalogue = \(directory.appending("web.sqlite"))
            web = 127.0.0.1:\(port)
            """.write(toFile: Paths.join(configHome, "bundlefs/bundlefs.conf"), atomically: true, encoding: .utf8)
        let (process, socket) = try serve([], environment: ["XDG_CONFIG_HOME": configHome])
        defer { finish(process, mountPoint: mountPoint) }
        try socket.waitFor(timeout: 120, "READY=1") { $0 == "READY=1" }
        func get(_ target: String) throws -> String {
            let result = try Subprocess.run("/usr/bin/curl", ["-s", "-f", "http://127.0.0.1:\(port)\(target)"])
            return result.status == 0 ? result.standardOutput : ""
        }
        #expect(try get("/").contains("<form"), "the first page")
        #expect(try !get("/api/bundles?q=newcomer").contains("com.example.newcomer"))
        TreeWriter(root: source).macApp("Applications/Newcomer.app", identifier: "com.example.newcomer")
        try poll(timeout: 60, "the new application on a search") { try get("/api/bundles?q=newcomer").contains("com.example.newcomer") }
        // The same server answers the symbol routes.
        let symbols = try Subprocess.run("/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", "http://127.0.0.1:\(port)/buildid/48F282DE1BD5F16267A9DA7D51476FD4/debuginfo"])
        #expect(symbols.status == 0, "\(symbols)")
        kill(process.processIdentifier, SIGTERM)
        try poll(timeout: 30, "serve to exit") { hasExited(process) }
        #expect(process.terminationStatus == 0)
    }

    /// The symbol server beside the view is made as `serve-symbols`' is (issue 39): the
    /// `BUNDLEFS_SYMBOLS_*` settings apply (here the time to send a request's head), and an
    /// address other hosts reach is warned about. Before, both held for `serve-symbols` only.
    @Test func symbolsBesideTheViewTakeTheServersSettingsAndWarning() throws {
        let mountPoint = directory.appending("network-mnt")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let (process, socket) = try serve([source, mountPoint, "--catalogue", directory.appending("network.sqlite"), "--symbols", "0.0.0.0:0", "--log-level", "debug"],
                                          environment: ["BUNDLEFS_SYMBOLS_HEADER_TIMEOUT_MS": "500"])
        defer { finish(process, mountPoint: mountPoint) }
        try socket.waitFor(timeout: 120, "READY=1") { $0 == "READY=1" }
        func log() -> String { (try? String(contentsOfFile: directory.appending("serve.log"), encoding: .utf8)) ?? "" }
        let address = try #require(log().range(of: #"http://0\.0\.0\.0:[0-9]+"#, options: .regularExpression), "\(log())")
        let port = try #require(Int(log()[address].split(separator: ":").last ?? ""))
        #expect(log().contains("serving symbols to the network: whoever reaches 0.0.0.0:\(port) reads the catalogued files"), "\(log())")
        let silent = try #require(RawConnection(port: port))
        try poll(timeout: 60, "the silent connection cut off by the configured head timeout") {
            log().contains("no request head within 0.5 seconds; closed")
        }
        try poll(timeout: 10, "the cut-off to reach this end") { silent.isClosedByPeer }
        kill(process.processIdentifier, SIGTERM)
        try poll(timeout: 30, "serve to exit") { hasExited(process) }
        #expect(process.terminationStatus == 0)
    }

    @Test func aRestartAfterACrashClearsItsDeadMount() throws {
        let mountPoint = directory.appending("crash-mnt")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let arguments = [source, mountPoint, "--catalogue", directory.appending("crash.sqlite")]
        let (crashed, socket) = try serve(arguments)
        defer { finish(crashed, mountPoint: mountPoint) }
        try socket.waitFor(timeout: 120, "READY=1") { $0 == "READY=1" }
        kill(crashed.processIdentifier, SIGKILL)
        crashed.waitUntilExit()
        #expect(opendir(mountPoint) == nil && errno == ENOTCONN, "a killed daemon leaves a dead mount")

        let (restarted, again) = try serve(arguments)
        defer { finish(restarted, mountPoint: mountPoint) }
        try again.waitFor(timeout: 120, "READY=1 after the restart") { $0 == "READY=1" }
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).contains("Applications"))
        kill(restarted.processIdentifier, SIGTERM)
        try poll(timeout: 30, "serve to exit") { hasExited(restarted) }
        #expect(restarted.terminationStatus == 0 && !isMounted(mountPoint))
    }

    @Test func aBadConfigurationIsOneLineNamingFileAndLine() throws {
        let file = directory.appending("bad.conf")
        try "source = \(source)\nmountpoint = relative/path\n".write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Subprocess.run(Subprocess.bundlefs, ["serve", "--config", file])
        #expect(result.status == 1)
        #expect(result.standardError.contains("\(file):2:") && result.standardError.contains("absolute path"), "\(result)")
        let missing = try Subprocess.run(Subprocess.bundlefs, ["serve", "--config", directory.appending("absent.conf")])
        #expect(missing.status == 1 && missing.standardError.contains("absent.conf") && missing.standardError.contains("cannot be read"),
                "\(missing)")
        let half = try Subprocess.run(Subprocess.bundlefs, ["serve", source])
        #expect(half.status == 1 && half.standardError.contains("both SOURCE and MOUNTPOINT"), "\(half)")
    }
}
