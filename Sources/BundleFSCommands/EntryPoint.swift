import CatalogueCommands

/// The complete command line (`bundlefs-full`, which the installed `bundlefs` hands every command
/// it does not answer itself: `QueryOnlyMain`): every command, with PostgreSQL for `--database`.
public enum BundleFSMain {
    public static func run() -> Never {
        CommandLineMain.run(BundleFS.self, arguments: CommandLineMain.arguments())
    }
}
