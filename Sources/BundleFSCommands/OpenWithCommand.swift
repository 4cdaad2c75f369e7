import ArgumentParser
import BundleModel
import Catalogue
import CatalogueCommands
import Codecs
import SystemCalls

struct OpenWithCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-with",
        abstract: "The applications that open a document, a type or a URL scheme, best first (exit 1 when none claims it).",
        discussion: """
            Answers from the catalogue what a Mac's Launch Services answers (BUNDLES.md rules 28 to 30): \
            applications' CFBundleDocumentTypes and CFBundleURLTypes, ranked Owner, Default, Alternate \
            (rank or role None only with --all, and never the default), exact claims before claims through a type's conformance, claims of \
            everything last, newer versions first. The first is the default application. A PATH's \
            type comes from its extension; a folder is public.folder. With --database, every host's \
            installed applications (or --host's) are ranked together. See Docs/launch-services.md.
            """)

    enum RoleOption: String, ExpressibleByArgument, CaseIterable {
        case editor, viewer, shell

        var role: LaunchClaim.Role {
            switch self {
            case .editor: .editor
            case .viewer: .viewer
            case .shell: .shell
            }
        }
    }

    @Argument(help: "A document or folder.")
    var path: String?

    @Option(name: .customLong("extension"), help: "A file name extension instead of a path.")
    var fileExtension: String?

    @Option(help: "A uniform type identifier instead of a path.")
    var type: String?

    @Option(help: "A URL scheme instead of a path.")
    var scheme: String?

    @Option(help: "Only applications in this role (an editor also views).")
    var role: RoleOption?

    @Flag(help: "Also list claims of rank None and of role None (an icon, not a handler).")
    var all = false

    @Flag(help: "Print a JSON array.")
    var json = false

    @OptionGroup var remote: DatabaseOptions

    @OptionGroup var common: CommonOptions

    func validate() throws {
        let given = [path != nil, fileExtension != nil, type != nil, scheme != nil].filter { $0 }.count
        guard given == 1 else { throw ValidationError("give one of PATH, --extension, --type or --scheme") }
        if remote.database != nil && path != nil { throw ValidationError("with --database, ask by --extension, --type or --scheme (a PATH is on this host)") }
    }

    func run() throws {
        let languages = try common.languages()
        let handlers: [HandlerRanking.Handler]
        let asked: String
        // By host and path (two hosts may have an application at the same path), the path as bytes:
        // NFC and NFD twins are two applications.
        struct Key: Hashable {
            var host: String?
            var path: FilePath
        }
        var records: [Key: BundleRecord] = [:]
        func key(_ host: String?, _ path: FilePath) -> Key { Key(host: host, path: path) }
        if let database = remote.database {
            let question: HandlerRanking.Question
            (question, asked) = try self.question(nil)
            let published = try remote.handlers(of: question, role: role?.role, all: all, database: database)
            handlers = published.handlers
            for bundle in published.records { records[key(bundle.host, bundle.record.key)] = bundle.record }
            for host in published.hostsWithoutClaims {
                printError("warning: host \(host) was published by an older bundlefs, without claims: its applications are left out until its publisher, upgraded, sends it again")
            }
        } else {
            let catalogue = try common.openCatalogue(.readOnly)
            let question: HandlerRanking.Question
            (question, asked) = try self.question(catalogue)
            handlers = try catalogue.handlers(of: question, role: role?.role, all: all)
            for bundle in try catalogue.bundles(atPaths: handlers.map(\.application.path)) { records[key(nil, bundle.record.key)] = bundle.record }
        }
        guard !handlers.isEmpty else { throw NegativeAnswer(description: "no application claims \(asked)") }
        func displayName(_ handler: HandlerRanking.Handler) -> String {
            records[key(handler.application.host, handler.application.path)].map { DisplayNames.sanitized($0.displayName(for: languages), realName: $0.name.string) }
                ?? handler.application.path.lastComponent.string
        }
        let defaultIndex = HandlerRanking.defaultIndex(handlers, role: role?.role)
        if json {
            print(JSONValue.array(handlers.enumerated().map { index, handler in
                HandlerJSON.record(handler, displayName: displayName(handler), isDefault: index == defaultIndex)
            }).serialized(pretty: true))
            return
        }
        var table = TextTable(header: (remote.database == nil ? [] : ["HOST"]) + ["RANK", "ROLE", "IDENTIFIER", "VERSION", "NAME", "PATH"])
        for handler in handlers {
            table.rows.append((handler.application.host.map { [TerminalText.safe($0)] } ?? []) + [
                handler.claim.rank.rawValue, handler.claim.role.rawValue, TerminalText.safe(handler.application.identifier ?? "-"),
                TerminalText.safe(handler.application.version ?? "-"), displayName(handler).terminalSafe,
                TerminalText.safe(handler.application.path.string),
            ])
        }
        print(table.rendered())
    }

    /// The question, and how to name it in a message; a PATH needs the local catalogue.
    func question(_ catalogue: Catalogue?) throws -> (HandlerRanking.Question, String) {
        if let fileExtension { return (.file(extension: Substring(fileExtension).drop { $0 == "." }.lowercased()), "extension \(fileExtension)") }
        if let type { return (.type(type), "type \(type)") }
        if let scheme { return (.scheme(scheme), "scheme \(scheme)") }
        let given = FilePath(path ?? ".")
        let resolved: FilePath
        do { resolved = try given.resolved() } catch { throw UserError("\(given): \((error as? SystemError)?.message ?? "\(error)")") }
        // The name given says the type, as the Finder reads a link's own name.
        let ext = given.lastComponent.lowercasedExtension
        guard (try? FileStatus.of(resolved))?.type == .directory else { return (.file(extension: ext), "\(given)") }
        // A package is its package type and a folder; the catalogue knows whether it is one.
        if let ext, let bundle = try catalogue?.bundles(atPaths: [resolved]).first, bundle.record.isPackage {
            return (.package(extension: ext), "\(given)")
        }
        return (.folder, "\(given)")
    }
}
