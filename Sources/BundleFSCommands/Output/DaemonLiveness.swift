#if canImport(Glibc)
import CatalogueCommands
import Glibc
#endif

/// Whether the daemon that wrote a status row is still there, for `status`: a row left by a daemon
/// that died without saying so is shown as such rather than as its last state.
enum DaemonLiveness {
    /// Whether the process exists (EPERM: it does, run by someone else).
    static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// The state to show: the recorded one, unless the process is gone without having stopped.
    static func state(_ recorded: String, alive: Bool) -> String {
        alive || recorded == "stopped" ? recorded : "not running (it stopped without saying so)"
    }
}
