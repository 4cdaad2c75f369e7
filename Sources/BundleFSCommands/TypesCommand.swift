import ArgumentParser
import BundleModel
import Catalogue
import CatalogueCommands
import Codecs

struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "The type database: the system's declarations and the installed applications' (exit 1 when nothing matches).",
        discussion: """
            Each type with its description, extensions, MIME types, the types it conforms to (the whole \
            closure) and who declares it: the system, or applications' UTExportedTypeDeclarations and \
            UTImportedTypeDeclarations. The system's declaration counts first, then an export, then an \
            import (BUNDLES.md rule 28, Docs/launch-services.md). Without a catalogue, the system's \
            declarations alone.
            """)

    @Argument(help: "A uniform type identifier (any case).")
    var identifier: String?

    @Option(name: .customLong("extension"), help: "Only the types of this file name extension.")
    var fileExtension: String?

    @Option(name: .customLong("conforms-to"), help: "Only the types that conform to this one.")
    var conformsTo: String?

    @Flag(help: "Print a JSON array.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        let database = try Self.typeDatabase(common)
        var keys = database.declarations.keys.sorted()
        if let identifier { keys = keys.filter { $0 == TypeDatabase.key(identifier) } }
        if let fileExtension {
            let types = Set(database.types(forExtension: String(Substring(fileExtension).drop { $0 == "." })))
            keys = keys.filter(types.contains)
        }
        if let conformsTo { keys = keys.filter { database.conforms($0, to: conformsTo) } }
        guard !keys.isEmpty else { throw NegativeAnswer(description: "no type matches") }
        let types = keys.compactMap { key in database.declarations[key].map { (key, $0) } }
        if json {
            print(JSONValue.array(types.map { key, declarations in
                let winner = declarations[0]
                return .object([
                    ("identifier", .string(winner.identifier)),
                    ("description", winner.description.map(JSONValue.string) ?? .null),
                    ("conformsTo", .strings(database.conformance(of: key).dropFirst().map(\.type))),
                    ("extensions", .strings(winner.extensions)),
                    ("mimeTypes", .strings(winner.mimeTypes)),
                    ("declaredBy", .array(declarations.map { declaration in
                        .object([("path", declaration.declaredBy.map { JSONValue.string($0.string) } ?? .null),
                                 ("kind", .string(declaration.origin.rawValue))])
                    })),
                ])
            }).serialized(pretty: true))
            return
        }
        var table = TextTable(header: ["IDENTIFIER", "EXTENSIONS", "CONFORMS TO", "DECLARED BY"])
        for (_, declarations) in types {
            let winner = declarations[0]
            table.rows.append([
                TerminalText.safe(winner.identifier), TerminalText.safe(winner.extensions.joined(separator: ",").ifEmpty("-")),
                TerminalText.safe(winner.conformsTo.joined(separator: ",").ifEmpty("-")),
                TerminalText.safe(declarations.map { $0.declaredBy?.string ?? "system" }.joined(separator: ", ")),
            ])
        }
        print(table.rendered())
    }
}

extension TypesCommand {
    /// The system's table is in the binary: with no catalogue yet, it answers alone; with one, the
    /// installed applications' declarations join it. A catalogue that is there but unusable is an error.
    static func typeDatabase(_ common: CommonOptions) throws -> TypeDatabase {
        do {
            return try Catalogue(path: common.catalogueFile, mode: .readOnly).typeDatabase()
        } catch CatalogueError.missing {
            return TypeDatabase.standardSystemDatabase
        } catch let error as CatalogueError {
            throw UserError("\(error)")
        }
    }
}

extension String {
    fileprivate func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
