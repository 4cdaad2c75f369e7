import Foundation
@testable import Publishing
import Testing
import TestSupport

/// A connection over TCP gives up on a server the network lost without a reset in about a minute:
/// its socket carries the keepalive and user-timeout options, read back from the kernel, on a real
/// PostgreSQL listening on 127.0.0.1. A connection string's own values win.
struct DeadPeerTests {
    static func option(_ connection: PostgresConnection, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(connection.socketDescriptor, level, name, &value, &length) == 0 else { return -1 }
        return value
    }

    @Test func aTCPConnectionProbesItsPeerAndTimesOutUnacknowledgedRequests() throws {
        let server = try PostgresServer(tcp: true)
        let connection = try PostgresConnection(server.tcpURL)
        #expect(try connection.execute("SELECT 1").rows == [["1"]])
        #expect(Self.option(connection, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(Self.option(connection, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 30)
        #expect(Self.option(connection, Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 10)
        #expect(Self.option(connection, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 3)
        #expect(Self.option(connection, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT) == 60_000)

        let own = try PostgresConnection(server.tcpURL + "?keepalives_idle=45&tcp_user_timeout=5000")
        #expect(Self.option(own, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 45)
        #expect(Self.option(own, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT) == 5_000)
        #expect(Self.option(own, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 3)
    }
}
