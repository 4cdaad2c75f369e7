import Foundation
import Testing
import TestSupport

/// Hostile clients (issue 28): thousands of idle connections, a huge request line, headers sent
/// a byte at a time. The server stays up, its memory and descriptors bounded, and others are
/// still served. One at a time: Foundation's `Process.run` (curl) crashed in a memcpy while the
/// 5,000-connection test opened descriptors on another thread of the same process (a fresh
/// clone's CI, load 13).
@Suite(.serialized) struct SymbolServerHostileTests {
    @Test func fiveThousandIdleConnectionsLeaveRoomForAClient() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let url = server.url + "/buildid/\(fixture.machOKey)/executable"
        #expect(try curl(url).status == 200)
        let before = server.residentKiB
        RawConnection.allowDescriptors(6_000)
        var idle: [RawConnection] = []
        for _ in 0..<5_000 {
            guard let connection = RawConnection(port: server.port) else { break }
            idle.append(connection)
        }
        #expect(idle.count == 5_000, "connected \(idle.count)")
        // Another client is answered while they are held, each idle one sent nothing.
        let answer = try curl(url)
        #expect(try answer.status == 200 && answer.body == fixture.bytes("Build/Tool.app/Contents/MacOS/Tool"))
        let after = server.residentKiB, descriptors = server.openDescriptors
        print("5,000 idle connections: RSS \(before) KiB before, \(after) KiB with them; \(descriptors) descriptors; \(idle.filter(\.isClosedByPeer).count) closed by the server")
        #expect(server.isRunning)
        // The bound holds (4,096 connections, the oldest idle ones closed to make room: the server
        // accepts, then closes, so under load it may be a batch over for a moment) and memory stays small.
        try poll(timeout: 10, "the server's \(server.openDescriptors) descriptors under 4,096 + 64") { server.openDescriptors < 4_096 + 64 }
        // The server's closes reach this end a moment after it makes room: looked for until they have.
        try poll(timeout: 10, "\(idle.filter(\.isClosedByPeer).count) of 5,000 closed by the server") { idle.filter(\.isClosedByPeer).count >= 5_000 - 4_096 }
        #expect(after - before < 64 * 1_024, "RSS grew from \(before) to \(after) KiB")
        idle.removeAll()
        #expect(try curl(url).status == 200)
    }

    @Test func aHugeRequestLineIsRefused() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let connection = try #require(RawConnection(port: server.port))
        let line = Array("GET /buildid/".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + Array("/debuginfo HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        connection.send(line)
        let answer = String(decoding: connection.receive(timeout: 5), as: UTF8.self)
        // Refused with 400 (or cut off before the answer could be read): never served.
        #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
        #expect(server.isRunning)
        #expect(try curl(server.url + "/buildid/\(fixture.machOKey)/debuginfo").status == 200)
    }

    @Test func slowHeadersAreCutOff() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"),
                                             environment: ["BUNDLEFS_SYMBOLS_HEADER_TIMEOUT_MS": "1000"])
        let slow = try #require(RawConnection(port: server.port)), silent = try #require(RawConnection(port: server.port))
        let started = Date()
        slow.send(Array("GET /buildid/".utf8))
        // A byte every 100 ms keeps the connection busy but never finishes the head.
        while !slow.isClosedByPeer && Date().timeIntervalSince(started) < 60 {
            slow.send([UInt8(ascii: "a")])
            usleep(100_000)
        }
        // Cut off by the head's timeout (1 s), though bytes kept coming: not before it, and not
        // only by the loop's end (a hang's guard; how late a loaded machine fires the timer is
        // the benchmark's to measure).
        let elapsed = Date().timeIntervalSince(started)
        #expect(slow.isClosedByPeer && elapsed >= 0.9, "closed after \(elapsed) s")
        // The silent one by its own timer, which may fire a little after the slow one's.
        try poll(timeout: 5, "the silent connection to be cut off") { silent.isClosedByPeer }
        #expect(try curl(server.url + "/buildid/\(fixture.machOKey)/debuginfo").status == 200)
        #expect(server.isRunning)
    }
}
