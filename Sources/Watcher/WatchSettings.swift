import SystemCalls

/// How directories are watched (`--backend`, the configuration's `backend`).
public enum WatchBackend: String, Sendable, CaseIterable {
    /// fanotify where the process may mark the roots' filesystems, inotify otherwise.
    case auto
    /// One fanotify mark per filesystem; failing to mark a root's filesystem is an error.
    case fanotify
    /// One inotify watch per directory.
    case inotify
}

/// How the watcher paces itself. The defaults suit a desktop or a server; tests and benchmarks
/// shorten them through the environment (BUNDLEFS_SETTLE_MS, BUNDLEFS_RESCAN_INTERVAL,
/// BUNDLEFS_WATCH_LIMIT, BUNDLEFS_READ_INTERVAL_MS, and BUNDLEFS_BACKEND where no `--backend` is
/// given).
public struct WatchSettings: Sendable {
    /// Quiet time after the last event before a batch is processed: editors write a file in several
    /// steps, and one batch should see them all. It is most of a single change's latency (SPEC:
    /// p50 under 25 ms), and steps a few milliseconds apart still fall in one batch; slower ones
    /// cost a second batch, never a wrong catalogue.
    public var settleSeconds = 0.01
    /// A busy tree is still processed at least this often.
    public var maximumBatchDelay = 0.25
    /// How many inotify watches to use at most; nil means the kernel's limit less some headroom,
    /// so other programs of the same user keep watches too.
    public var watchLimit: Int?
    /// How often directories that could not be watched are checked.
    public var rescanInterval = 30.0
    /// How often the status row is rewritten.
    public var statusInterval = 2.0
    /// After a queue overflow, the first rescan waits this long; repeated overflows double it.
    public var overflowBackoff = 0.5
    public var maximumOverflowBackoff = 60.0
    /// After a failed catalogue write, the first retry waits this long; repeated failures double
    /// it, up to the maximum (short: a fault is a user waiting for the catalogue to come back).
    public var faultBackoff = 0.5
    public var maximumFaultBackoff = 10.0
    /// Events kept in memory while a batch or rescan runs; beyond this they are dropped and
    /// treated as an overflow.
    public var maximumQueuedEvents = 2_000_000
    /// Reads of the event queues are at least this far apart (a first event after a quiet spell is
    /// read at once): under a stream of events, most of them outside the roots with fanotify, one
    /// wake-up per event cost more than the events themselves. It adds at most this much to a
    /// change's latency, and only while events stream in.
    public var readInterval = 0.005
    public var backend = WatchBackend.auto

    public init() {}

    public static func fromEnvironment(_ environment: [String: String]) -> WatchSettings {
        var settings = WatchSettings()
        if let value = environment["BUNDLEFS_SETTLE_MS"].flatMap(Double.init) { settings.settleSeconds = value / 1000 }
        if let value = environment["BUNDLEFS_RESCAN_INTERVAL"].flatMap(Double.init) { settings.rescanInterval = value }
        if let value = environment["BUNDLEFS_WATCH_LIMIT"].flatMap(Int.init) { settings.watchLimit = max(0, value) }
        if let value = environment["BUNDLEFS_READ_INTERVAL_MS"].flatMap(Double.init) { settings.readInterval = max(0, value) / 1000 }
        if let value = environment["BUNDLEFS_BACKEND"].flatMap(WatchBackend.init(rawValue:)) { settings.backend = value }
        return settings
    }

    /// The number of watches the watcher allows itself.
    var effectiveWatchLimit: Int { watchLimit ?? Self.watchLimit(kernelLimit: Inotify.maximumWatches) }

    /// The kernel's limit less a reserve for the user's other programs: 2% of it, at least 512,
    /// but never more than a quarter, so a small limit still leaves most watches to the watcher.
    static func watchLimit(kernelLimit kernel: Int) -> Int {
        max(0, kernel - min(max(512, kernel / 50), kernel / 4))
    }
}
