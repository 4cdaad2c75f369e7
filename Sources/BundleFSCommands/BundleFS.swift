import ArgumentParser

/// `bundlefs`: the command-line interface. Each subcommand is a thin layer over the library
/// targets; the rules live in BundleModel, storage in Catalogue.
struct BundleFS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundlefs",
        abstract: "Catalogue macOS-style bundles and packages in directory trees, and resolve them as a Mac does.",
        discussion: """
            bundlefs keeps a SQLite catalogue of the bundles (.app, .framework, .plugin, ...) and packages under \
            the roots you index, finds them by identifier, and resolves their localized names and resources \
            the way the Finder and CFBundle do.
            """,
        version: BundleFSVersion.string,
        subcommands: [IndexCommand.self, QueryCommand.self, ShowCommand.self, ResolveCommand.self, WatchCommand.self, StatusCommand.self, MountCommand.self])
}

enum BundleFSVersion {
    static let string = "0.1.0"
}
