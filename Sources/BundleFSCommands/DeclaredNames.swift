import ArgumentParser
import CatalogueCommands

extension NameSpecification {
    /// An option's names as `CommandOption` declares them, the ones `DirectArguments` reads by.
    static func declared(_ option: CommandOption) -> NameSpecification {
        guard let short = option.short else { return [.customLong(option.name)] }
        return [.customShort(short), .customLong(option.name)]
    }
}
