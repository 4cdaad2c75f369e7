import ArgumentParser
import BundleModel
import CatalogueCommands

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Print the file the bundle search pattern picks for a resource (exit 1 when none).",
        discussion: """
            The resource path is relative to the bundle's resources directory and has no .lproj part \
            (bird.tiff, Sounds/city1.aiff, InfoPlist.strings). The global resource is tried first, then each \
            chosen localization, with Base.lproj right after the first.
            """)

    @Argument(help: ArgumentHelp("The bundle directory.", valueName: "bundle"))
    var bundle: String

    @Argument(help: ArgumentHelp("The resource path, without any .lproj part.", valueName: "resource"))
    var resource: String

    @OptionGroup var common: CommonOptions

    func run() throws {
        let languages = try common.languages()
        let record = try BundleReading.read(bundle, common: common)
        let resolver: ResourceResolver
        do { resolver = try ResourceResolver(record: record) } catch { throw UserError("\(error)") }
        let resolution: ResourceResolver.Resolution?
        do { resolution = try resolver.resolve(resource, languages: languages) } catch { throw UserError("\(error)") }
        guard let resolution else {
            let tried = (try? resolver.candidates(for: resource, languages: languages).map(\.relative.string)) ?? []
            throw NegativeAnswer(description: "no \(resource) in \(record.key) (tried \(tried.joined(separator: ", ")))")
        }
        print(resolution.path.string)
    }
}
