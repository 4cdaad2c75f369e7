public import Scanner
public import SystemCalls
public import Watcher

extension Daemon {
    /// What to run: a command fills one in and calls `Daemon.start` (BundleFSCommands), nothing else.
    public struct Plan: Sendable {
        /// Trees to keep catalogued (absolute; made canonical here). None: no watcher, and the
        /// catalogue is only read (`serve-symbols`, beside a `watch` that keeps it current).
        public var roots: [FilePath]
        public var catalogue: FilePath
        /// The view over the one root, when mounting.
        public var view: ViewPlan?
        /// A PostgreSQL database to keep current; without one, changes stop being queued for a
        /// publisher no longer configured.
        public var publish: PublishPlan?
        /// HTTP servers reading the catalogue (`serve-symbols --listen`, `symbols = ADDR:PORT`).
        public var http: [HTTPServerPlan] = []
        /// Speak systemd's notify protocol (`serve`): readiness, status lines, watchdog.
        public var notifiesSystemd = false
        public var watch = WatchSettings()
        public var scan = ScanOptions()

        public init(roots: [FilePath], catalogue: FilePath) {
            self.roots = roots
            self.catalogue = catalogue
        }

        /// Whether a watcher keeps the catalogue current, and so whether the daemon writes it.
        public var watches: Bool { !roots.isEmpty }
        /// Only web pages of a fleet's PostgreSQL database (`serve-web --database`): nothing of
        /// this plan needs a local catalogue.
        var readsOnlyAFleet: Bool {
            !watches && publish == nil && !http.isEmpty && http.allSatisfy { $0.web.database != nil }
        }
    }

    public struct ViewPlan: Sendable {
        public var mountPoint: FilePath
        public var settings: MountSettings
        /// After a crash, systemd restarts the service on its own dead mount: clear it first.
        public var clearsDeadMount = false
        /// `mount` without `--nonempty`: a mount point that holds something is refused, since the
        /// view would hide it.
        public var refusesNonEmpty = false

        public init(mountPoint: FilePath, settings: MountSettings) {
            self.mountPoint = mountPoint
            self.settings = settings
        }
    }

    public struct PublishPlan: Sendable, Equatable {
        public var url: String
        public var host: String?

        public init(url: String, host: String?) {
            self.url = url
            self.host = host
        }
    }
}
