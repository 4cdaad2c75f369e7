#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// systemd's notify protocol (sd_notify(3)), spoken directly: newline-separated `KEY=VALUE`
/// fields in one datagram to the AF_UNIX socket named by `NOTIFY_SOCKET` (a path, or an abstract
/// name written with a leading `@`). Without libsystemd, which Debian's Swift cannot link
/// statically and which would be our only use of it.
public final class SystemdNotifier: Sendable {
    let socketPath: [UInt8]
    let descriptor: Int32

    /// nil when `NOTIFY_SOCKET` is unset (not started by systemd) or unusable.
    public init?(environment: [String: String]) {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        var path = Array(name.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let limit = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard path.first == 0 || path.first == UInt8(ascii: "/"), path.count < limit else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        socketPath = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Sends the fields in one datagram; returns whether it was sent. A lost notification is not
    /// worth stopping the service for, so callers may ignore the result.
    @discardableResult
    public func send(_ fields: [String]) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in socketPath.enumerated() { bytes[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + socketPath.count + (socketPath.first == 0 ? 0 : 1))
        let message = Array(fields.joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
            }
        }
        return sent == message.count
    }

    /// How often to send WATCHDOG=1: half the interval systemd asks for in `WATCHDOG_USEC`, when
    /// it asks this process (`WATCHDOG_PID`, when set, names it).
    public static func watchdogInterval(environment: [String: String]) -> Double? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], pid != String(getpid()) { return nil }
        return Double(microseconds) / 2e6
    }
}
