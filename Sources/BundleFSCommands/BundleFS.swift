import ArgumentParser
import CatalogueCommands
import Service

/// `bundlefs`: the command-line interface. Each subcommand is a thin layer over the library
/// targets; the rules live in BundleModel, storage in Catalogue.
struct BundleFS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundlefs",
        abstract: "Catalogue macOS-style bundles and packages in directory trees, resolve them as a Mac does, and mount a Finder-like view.",
        discussion: """
            bundlefs keeps a SQLite catalogue of the bundles (.app, .framework, .plugin, ...) and packages under \
            the roots you index, finds them by identifier, and resolves their localized names and resources \
            the way the Finder and CFBundle do. `watch` keeps the catalogue current; `mount` and `serve` show \
            a tree as a Mac user sees it, packages as single files.

            Files: the catalogue, $XDG_CACHE_HOME/bundlefs/catalogue.sqlite (~/.cache/bundlefs/...); the \
            service's configuration, $XDG_CONFIG_HOME/bundlefs/bundlefs.conf (~/.config/bundlefs/...), \
            `key = value` lines: \(ServeConfiguration.keys.joined(separator: ", ")).

            Environment: BUNDLEFS_CATALOGUE (the catalogue), LANGUAGE, LC_ALL, LC_MESSAGES, LANG (the \
            default languages), NOTIFY_SOCKET and WATCHDOG_USEC (set by systemd for `serve`).

            Exit status: 0 success, 1 a user error (one line naming the bad input) or no answer (no bundle \
            matches, no application claims it), 2 an internal failure.
            """,
        version: BundleFSVersion.string,
        subcommands: [IndexCommand.self, QueryCommand.self, ShowCommand.self, ResolveCommand.self, SymbolsCommand.self, OpenWithCommand.self, TypesCommand.self, WatchCommand.self, StatusCommand.self, MountCommand.self, ServeCommand.self, ServeSymbolsCommand.self, ServeWebCommand.self, PublishCommand.self])
}
