import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Binds `descriptor` to a Unix socket at `path` (the test sockets that stand where a service
/// expects one: systemd's notify socket, PostgreSQL's); false with errno set when bind fails.
func bindUnixSocket(_ descriptor: Int32, to path: String) -> Bool {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    precondition(bytes.count < MemoryLayout.size(ofValue: address.sun_path), "socket path too long: \(path)")
    withUnsafeMutableBytes(of: &address.sun_path) { for (index, byte) in bytes.enumerated() { $0[index] = byte } }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    } == 0
}
