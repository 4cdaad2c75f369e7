import ArgumentParser
import CatalogueCommands

struct QueryCommand: ParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "List catalogued bundles: by exact identifier, by a glob such as com.example.*, by kind, under a path, by UUID or architecture.",
        discussion: "Identifiers match case-insensitively. With no arguments, every catalogued bundle and package is listed.")

    @Argument(help: ArgumentHelp("An identifier, or a glob with * and ?.", valueName: "id-or-glob"))
    var identifier: String?

    @Option(name: .declared(.kind), help: ArgumentHelp("Only this kind: application, framework, bundle, plugin, extension, kext, document, backup (a Time Machine backup), folder (a folder named like a bundle, listed only when asked for), or a raw package type.", valueName: "kind"))
    var kind: String?

    @Option(name: .declared(.under), help: ArgumentHelp("Only bundles at or below this path.", valueName: "path"))
    var under: String?

    @Option(name: .declared(.uuid), help: ArgumentHelp("Only bundles with an executable or DWARF slice of this Mach-O UUID or ELF build-id (any case, hyphens or none).", valueName: "uuid"))
    var uuid: String?

    @Option(name: .declared(.arch), help: ArgumentHelp("Only bundles with a slice of this architecture (x86_64, arm64, arm64e, i386, ppc, aarch64, ...).", valueName: "arch"))
    var arch: String?

    @Flag(name: .declared(.inArchives), help: "Only bundles inside archives (.ipa, .zip, .tar.*, ...).")
    var inArchives = false

    @Flag(name: .declared(.noArchives), help: "Only bundles on disk, none inside archives.")
    var noArchives = false

    @Option(name: .declared(.plugInType), help: ArgumentHelp("Only bundles that provide this CFPlugIn type (a UUID, any case).", valueName: "uuid"))
    var plugInType: String?

    @Option(name: .declared(.extensionPoint), help: ArgumentHelp("Only extensions of this extension point (NSExtensionPointIdentifier).", valueName: "id"))
    var extensionPoint: String?

    @Option(name: .declared(.runsOn), help: ArgumentHelp(
        "Only bundles whose executable runs natively there: PLATFORM[:VERSION][/ARCH], e.g. macos:15.0/arm64, macos/x86_64, ios:17.0.",
        valueName: "target"))
    var runsOn: String?

    @Flag(name: .declared(.json), help: "Print a JSON array for programs instead of a table.")
    var json = false

    @OptionGroup var remote: DatabaseOptions

    @OptionGroup var common: CommonOptions

    func run() throws { try request.run(asking: PostgresBundles()) }

    /// What was asked, as plain values (what `DirectArguments` reads without this type).
    var request: QueryRequest {
        QueryRequest(identifier: identifier, kind: kind, under: under, uuid: uuid, arch: arch, inArchives: inArchives, noArchives: noArchives,
                     plugInType: plugInType, extensionPoint: extensionPoint, runsOn: runsOn, json: json,
                     database: remote.database, host: remote.host, choice: common.catalogueChoice)
    }
}

