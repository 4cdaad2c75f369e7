import ArgumentParser
import BundleModel
import Catalogue
import Codecs
import SystemCalls

struct OpenWithCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-with",
        abstract: "The applications that open a document, a type or a URL scheme, best first (exit 1 when none claims it).",
        discussion: """
            Answers from the catalogue what a Mac's Launch Services answers (BUNDLES.md rules 28 to 30): \
            applications' CFBundleDocumentTypes and CFBundleURLTypes, ranked Owner, Default, Alternate \
            (None only with --all), exact claims before claims through a type's conformance, claims of \
            everything last, newer versions first. The first is the default application. A PATH's \
            type comes from its extension; a folder is public.folder. See Docs/launch-services.md.
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

    @Flag(help: "Also list claims of rank None.")
    var all = false

    @Flag(help: "Print a JSON array.")
    var json = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        let given = [path != nil, fileExtension != nil, type != nil, scheme != nil].filter { $0 }.count
        guard given == 1 else { throw ValidationError("give one of PATH, --extension, --type or --scheme") }
    }

    func run() throws {
        let catalogue = try common.openCatalogue(.readOnly)
        let (question, asked) = try question(catalogue)
        let handlers = try catalogue.handlers(of: question, role: role?.role, all: all)
        guard !handlers.isEmpty else { throw NegativeAnswer(description: "no application claims \(asked)") }
        let languages = try common.languages()
        let records = Dictionary(try catalogue.bundles(atPaths: handlers.map(\.application.path)).map { ($0.record.key, $0.record) },
                                 uniquingKeysWith: { $1 })
        func displayName(_ handler: HandlerRanking.Handler) -> String {
            records[handler.application.path].map { DisplayNames.sanitized($0.displayName(for: languages), realName: $0.name.string) }
                ?? handler.application.path.lastComponent.string
        }
        if json {
            print(JSONValue.array(handlers.enumerated().map { index, handler in
                var members: [(String, JSONValue)] = [
                    ("identifier", handler.application.identifier.map(JSONValue.string) ?? .null),
                    ("path", .string(handler.application.path.string)),
                    ("displayName", .string(displayName(handler))),
                    ("version", handler.application.version.map(JSONValue.string) ?? .null),
                    ("rank", .string(handler.claim.rank.rawValue)),
                    ("role", .string(handler.claim.role.rawValue)),
                    ("claim", .string(Self.describe(handler.claim.target))),
                ]
                if index == 0 { members.append(("default", .bool(true))) }
                return .object(members)
            }).serialized(pretty: true))
            return
        }
        var table = TextTable(header: ["RANK", "ROLE", "IDENTIFIER", "VERSION", "NAME", "PATH"])
        for handler in handlers {
            table.rows.append([
                handler.claim.rank.rawValue, handler.claim.role.rawValue, TerminalText.safe(handler.application.identifier ?? "-"),
                TerminalText.safe(handler.application.version ?? "-"), displayName(handler).terminalSafe,
                TerminalText.safe(handler.application.path.string),
            ])
        }
        print(table.rendered())
    }

    /// The question, and how to name it in a message.
    func question(_ catalogue: Catalogue) throws -> (HandlerRanking.Question, String) {
        if let fileExtension { return (.file(extension: Substring(fileExtension).drop { $0 == "." }.lowercased()), "extension \(fileExtension)") }
        if let type { return (.type(type), "type \(type)") }
        if let scheme { return (.scheme(scheme), "scheme \(scheme)") }
        let given = FilePath(path ?? ".")
        let resolved: FilePath
        do { resolved = try given.resolved() } catch { throw UserError("\(given): \(error)") }
        // The name given says the type, as the Finder reads a link's own name.
        let ext = given.lastComponent.lowercasedExtension
        guard (try? FileStatus.of(resolved))?.type == .directory else { return (.file(extension: ext), "\(given)") }
        // A package is its package type and a folder; the catalogue knows whether it is one.
        if let ext, let bundle = try catalogue.bundles(atPaths: [resolved]).first, bundle.record.isPackage {
            return (.package(extension: ext), "\(given)")
        }
        return (.folder, "\(given)")
    }

    static func describe(_ target: LaunchClaim.Target) -> String {
        switch target {
        case let .type(identifier): "type \(identifier)"
        case .fileExtension: "extension"
        case .mimeType: "mime"
        case .everything: "everything"
        case .scheme: "scheme"
        }
    }
}
