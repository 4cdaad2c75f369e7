import ArgumentParser
import Watcher

/// `--backend` of the daemons (`watch`, `mount`, `serve`): how the roots are watched.
struct WatchBackendOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "How to watch the roots: fanotify (one mark per filesystem; needs CAP_SYS_ADMIN), inotify (a watch per directory), or auto (fanotify where allowed, else inotify).",
        valueName: "auto|fanotify|inotify"), transform: Self.parse)
    var backend: WatchBackend?

    static func parse(_ value: String) throws -> WatchBackend {
        guard let backend = WatchBackend(rawValue: value) else { throw ValidationError("--backend must be auto, fanotify or inotify, not `\(value)`") }
        return backend
    }
}
