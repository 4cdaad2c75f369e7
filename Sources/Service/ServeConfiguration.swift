public import BundleModel
import Publishing
public import SymbolServer
public import SystemCalls
public import Watcher

/// What `bundlefs serve` serves: read from a small `key = value` file (Docs/service.md)
/// or given on the command line.
public struct ServeConfiguration: Sendable, Equatable {
    public var source: FilePath
    public var mountPoint: FilePath
    public var languages: [LanguageTag]?
    public var catalogue: FilePath?
    public var threads = MountSettings.defaultThreads
    public var allowOther = false
    /// A PostgreSQL database to keep current (SPEC "Many hosts"), never with a password in it.
    public var publish: String?
    /// The name this host's rows carry there.
    public var host: String?
    /// Where to serve the catalogue's symbols over HTTP (SPEC "Symbol stores"), beside the view.
    public var symbols: ListenAddress?
    /// Where to serve the web inventory (SPEC "The web inventory"), with the symbol routes, beside the view.
    public var web: ListenAddress?
    /// How the source is watched (`--backend`); nil: auto.
    public var backend: WatchBackend?

    public init(source: FilePath, mountPoint: FilePath) {
        self.source = source
        self.mountPoint = mountPoint
    }

    public static let keys = ["source", "mountpoint", "languages", "catalogue", "threads", "allow-other", "publish", "host", "symbols", "web", "backend"]

    /// `$XDG_CONFIG_HOME/bundlefs/bundlefs.conf`, else `~/.config/bundlefs/bundlefs.conf`.
    public static func defaultPath(environment: [String: String]) -> FilePath {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? FilePath($0) : nil }
            ?? FilePath(environment["HOME"] ?? "/").appending(".config")
        return base.appending(FilePath("bundlefs/bundlefs.conf"))
    }

    /// Parses a configuration file's text. Errors name the file and line.
    /// - Parameter home: what a leading `~` stands for.
    public static func parse(_ text: String, file: FilePath, home: FilePath) throws(ConfigurationError) -> ServeConfiguration {
        var values: [String: (value: String, line: Int)] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = rawLine.trimmingWhitespace()
            if content.isEmpty || content.hasPrefix("#") { continue }
            guard let equals = content.firstIndex(of: "=") else {
                throw ConfigurationError(file: file, line: line, "expected `key = value`, found `\(content)`")
            }
            let key = content[..<equals].trimmingWhitespace().lowercased()
            let value = content[content.index(after: equals)...].trimmingWhitespace()
            guard keys.contains(key) else {
                throw ConfigurationError(file: file, line: line, "unknown setting `\(key)` (known: \(keys.joined(separator: ", ")))")
            }
            if let earlier = values[key] {
                throw ConfigurationError(file: file, line: line, "`\(key)` is already set on line \(earlier.line)")
            }
            if value.isEmpty { throw ConfigurationError(file: file, line: line, "`\(key)` has no value") }
            values[key] = (value, line)
        }
        func path(_ key: String) throws(ConfigurationError) -> FilePath? {
            guard let (value, line) = values[key] else { return nil }
            if value == "~" { return home }
            if value.hasPrefix("~/") { return home.appending(FilePath(String(value.dropFirst(2)))) }
            guard value.hasPrefix("/") else {
                throw ConfigurationError(file: file, line: line, "`\(key)` must be an absolute path or start with `~/`, not `\(value)`")
            }
            return FilePath(value)
        }
        guard let source = try path("source") else { throw ConfigurationError(file: file, line: nil, "`source` is not set") }
        guard let mountPoint = try path("mountpoint") else { throw ConfigurationError(file: file, line: nil, "`mountpoint` is not set") }
        var configuration = ServeConfiguration(source: source, mountPoint: mountPoint)
        configuration.catalogue = try path("catalogue")
        if let (value, line) = values["languages"] {
            do { configuration.languages = try PreferredLanguages.parse(value) } catch {
                throw ConfigurationError(file: file, line: line, "`languages`: \(error)")
            }
        }
        if let (value, line) = values["threads"] {
            guard let threads = Int(value), (1...64).contains(threads) else {
                throw ConfigurationError(file: file, line: line, "`threads` must be a whole number from 1 to 64, not `\(value)`")
            }
            configuration.threads = threads
        }
        if let (value, line) = values["allow-other"] {
            switch value.lowercased() {
            case "yes", "true", "on", "1": configuration.allowOther = true
            case "no", "false", "off", "0": configuration.allowOther = false
            default: throw ConfigurationError(file: file, line: line, "`allow-other` must be yes or no, not `\(value)`")
            }
        }
        if let (value, line) = values["publish"] {
            guard PostgresURL.looksValid(value) else {
                throw ConfigurationError(file: file, line: line, "`publish` must be a PostgreSQL connection string (postgresql://… or key=value words)")
            }
            guard !PostgresURL.hasPassword(value) else {
                throw ConfigurationError(file: file, line: line, "`publish` holds a password; put it in ~/.pgpass (or PGPASSFILE) instead, where libpq finds it")
            }
            configuration.publish = value
        }
        if let (value, line) = values["host"] {
            guard !value.isEmpty else { throw ConfigurationError(file: file, line: line, "`host` cannot be empty") }
            configuration.host = value
        }
        if let (value, line) = values["symbols"] {
            guard let address = ListenAddress(value) else {
                throw ConfigurationError(file: file, line: line, "`symbols` must be ADDR:PORT, [IPV6]:PORT or PORT (a numeric address), not `\(value)`")
            }
            configuration.symbols = address
        }
        if let (value, line) = values["web"] {
            guard let address = ListenAddress(value) else {
                throw ConfigurationError(file: file, line: line, "`web` must be ADDR:PORT, [IPV6]:PORT or PORT (a numeric address), not `\(value)`")
            }
            configuration.web = address
        }
        if let (value, line) = values["backend"] {
            guard let backend = WatchBackend(rawValue: value.lowercased()) else {
                throw ConfigurationError(file: file, line: line, "`backend` must be auto, fanotify or inotify, not `\(value)`")
            }
            configuration.backend = backend
        }
        return configuration
    }

    /// Reads and parses a configuration file.
    public static func load(_ file: FilePath, home: FilePath) throws(ConfigurationError) -> ServeConfiguration {
        let bytes: [UInt8]
        do {
            bytes = try Descriptor.open(file, flags: Descriptor.readOnly).readToEnd(limit: 1 << 20)
        } catch {
            throw ConfigurationError(file: file, line: nil, "cannot be read (\(error)); see `man bundlefs` for the format")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: file, line: nil, "is not UTF-8 text")
        }
        return try parse(text, file: file, home: home)
    }

    /// The catalogue a configuration file's service uses when it names none: the default one for
    /// `bundlefs.conf`, else one named after the file, so that services side by side never share
    /// (a catalogue has one watcher).
    public static func defaultCatalogue(forConfiguration file: FilePath, defaultCatalogue: FilePath) -> FilePath {
        let name = file.lastComponent.string
        let stem = name.hasSuffix(".conf") ? String(name.dropLast(5)) : name
        if stem == "bundlefs" { return defaultCatalogue }
        return defaultCatalogue.parent.appending(FileName(stem + ".sqlite"))
    }
}

/// A configuration problem, as one line naming the file and line.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let file: FilePath
    public let line: Int?
    public let message: String

    init(file: FilePath, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
