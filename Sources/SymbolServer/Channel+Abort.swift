import NIOCore
#if canImport(Glibc)
import Glibc
#endif

extension Channel {
    /// Closes with a reset (SO_LINGER 0): for a client that is let go with bytes it never took.
    /// A plain close would leave them queued in the kernel ahead of the FIN, the socket orphaned
    /// there holding its buffers, and the client none the wiser.
    func abort() {
        guard let provider = self as? any SocketOptionProvider else { return close(promise: nil) }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in self.close(promise: nil) }
    }
}
