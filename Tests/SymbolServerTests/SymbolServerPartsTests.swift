import NIOCore
import NIOHTTP1
@testable import SymbolServer
import Testing

/// The server's pure parts, without a socket: the judgement of a client's progress, the HTTP
/// dates, debuginfod's headers.
@Suite struct SymbolServerPartsTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    @Test func aClientThatTakesNothingForTheWriteTimeoutIsStalled() {
        var progress = SendProgress(writeTimeout: .seconds(10), minimumRate: 0, acknowledged: 500, now: start)
        #expect(progress.observe(acknowledged: 500, now: start + .seconds(9)) == .waiting)
        #expect(progress.observe(acknowledged: 501, now: start + .milliseconds(9_500)) == .progressed)
        // Ten seconds from the last byte taken, not from the start.
        #expect(progress.observe(acknowledged: 501, now: start + .milliseconds(19_000)) == .waiting)
        #expect(progress.observe(acknowledged: 501, now: start + .milliseconds(19_500)) == .stalled)
    }

    @Test func aClientBelowTheFloorOverAWindowIsTooSlow() {
        var steady = SendProgress(writeTimeout: .seconds(10), minimumRate: 4_096, acknowledged: 0, now: start)
        // 5 KiB a second, a byte count every second: never below the floor.
        for second in 1...40 {
            #expect(steady.observe(acknowledged: UInt64(second * 5_120), now: start + .seconds(Int64(second))) == .progressed)
        }
        var slow = SendProgress(writeTimeout: .seconds(10), minimumRate: 4_096, acknowledged: 0, now: start)
        for second in 1...9 {
            #expect(slow.observe(acknowledged: UInt64(second * 1_000), now: start + .seconds(Int64(second))) == .progressed)
        }
        #expect(slow.observe(acknowledged: 10_000, now: start + .seconds(10)) == .tooSlow(bytes: 10_000))
    }

    @Test func httpDates() {
        #expect(HTTPDate.format(secondsSinceEpoch: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT") // RFC 9110's example
        #expect(HTTPDate.format(secondsSinceEpoch: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: 4_102_444_799) == "Thu, 31 Dec 2099 23:59:59 GMT")
        #expect(HTTPDate.format(secondsSinceEpoch: -1) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func debuginfodHeaderValues() {
        #expect(DebuginfodHeaders.fieldValue(Array("/srv/a b/Tool".utf8)) == "/srv/a b/Tool")
        #expect(DebuginfodHeaders.fieldValue(Array("/x%\r\nSet-Cookie: y/\u{e9}".utf8)) == "/x%25%0D%0ASet-Cookie: y/%C3%A9")
        func maximum(_ value: String) -> Int64? { DebuginfodHeaders.maximumSize(HTTPHeaders([("X-DEBUGINFOD-MAXSIZE", value)])) }
        #expect(maximum("1000") == 1_000)
        for value in ["0", "", "ten", "-5", "1e6", " 12", "99999999999999999999"] { #expect(maximum(value) == nil, "\(value)") }
    }
}
