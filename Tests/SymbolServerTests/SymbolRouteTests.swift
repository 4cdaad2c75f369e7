import BundleModel
import SymbolServer
import Testing

/// What a request's target names (SPEC.md "Symbol stores"), without a server: the routes, the
/// ranges and the listen addresses.
@Suite struct SymbolRouteTests {
    let uuid = "48f282de1bd5f16267a9da7d51476fd4"

    @Test func debuginfodPathsInAnyCase() {
        #expect(SymbolRoute(target: "/buildid/\(uuid)/debuginfo") == .file(.init(key: uuid, role: .debugInfo)))
        #expect(SymbolRoute(target: "/buildid/\(uuid.uppercased())/executable") == .file(.init(key: uuid, role: .executable)))
        #expect(SymbolRoute(target: "/buildid/aeca4e952f9924ba4d1d0e941a5d1f19e8c3ab32/debuginfo?x=1")
            == .file(.init(key: "aeca4e952f9924ba4d1d0e941a5d1f19e8c3ab32", role: .debugInfo)))
        // Percent-escapes of hex digits are the same name.
        #expect(SymbolRoute(target: "/buildid/%34%38f282de1bd5f16267a9da7d51476fd4/debuginfo") == .file(.init(key: uuid, role: .debugInfo)))
        // Sources and sections are a debuginfod question this server has no answer to.
        #expect(SymbolRoute(target: "/buildid/\(uuid)/source/usr/src/a.c") == .unknown)
        #expect(SymbolRoute(target: "/buildid/\(uuid)/section/.text") == .unknown)
    }

    @Test func layoutsGoThroughSymbolLayout() {
        #expect(SymbolRoute(target: "/native/48F2/82DE/1BD5/F162/67A9/DA7D51476FD4") == .file(.init(key: uuid, role: .debugInfo)))
        #expect(SymbolRoute(target: "/native/48f2/82de/1bd5/f162/67a9/da7d51476fd4.APP") == .file(.init(key: uuid, role: .executable)))
        #expect(SymbolRoute(target: "/native/ae/ca4e952f9924ba4d1d0e941a5d1f19e8c3ab32.debug")
            == .file(.init(key: "aeca4e952f9924ba4d1d0e941a5d1f19e8c3ab32", role: .debugInfo)))
        #expect(SymbolRoute(target: "/unified/48/f282de1bd5f16267a9da7d51476fd4/executable") == .file(.init(key: uuid, role: .executable)))
    }

    @Test func malformedAndUnknown() {
        for target in ["/buildid/../../etc/passwd", "/buildid/%2e%2e/%2e%2e/etc/passwd", "/buildid/%2E%2E/x/debuginfo", "/native/../../etc/passwd",
                       "/buildid/\(uuid)/debuginfo/", "/buildid//debuginfo", "/buildid/\(uuid)/symbols", "/buildid/48f2-82de/debuginfo",
                       "/buildid/abc/debuginfo", "/buildid/\(uuid)%2fdebuginfo", "/buildid/%zz/debuginfo", "/buildid/%00/debuginfo",
                       "/unified/48/f282/debuginfo", "/native/48F2/82DE", "buildid/\(uuid)/debuginfo", "*", "/./buildid"] {
            #expect(SymbolRoute(target: target) == .malformed, "\(target)")
        }
        for target in ["/", "/etc/passwd", "/favicon.ico", "/metrics"] {
            #expect(SymbolRoute(target: target) == .unknown, "\(target)")
        }
    }

    @Test func ranges() {
        #expect(ByteRange(header: nil, size: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-9", size: 100) == .part(0...9))
        #expect(ByteRange(header: "bytes=90-", size: 100) == .part(90...99))
        #expect(ByteRange(header: "bytes=90-500", size: 100) == .part(90...99))
        #expect(ByteRange(header: "bytes=-10", size: 100) == .part(90...99))
        #expect(ByteRange(header: "bytes=-500", size: 100) == .part(0...99))
        #expect(ByteRange(header: "bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-0", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
        // What may be ignored is answered whole: several ranges, other units, nonsense.
        for header in ["bytes=0-1,5-6", "items=0-1", "bytes=9-1", "bytes=x-", "bytes=1-2-3", "bytes=+1-2", "bytes=0x1-", "bytes=-", "bytes=1 -2", "bytes"] {
            #expect(ByteRange(header: header, size: 100) == .whole, "\(header)")
        }
    }

    /// RFC 9110 puts no bound on a position's digits: one past Int64 is still past the end.
    @Test func rangesBeyondInt64() {
        #expect(ByteRange(header: "bytes=0-99999999999999999999", size: 100) == .part(0...99))
        #expect(ByteRange(header: "bytes=10-9223372036854775808", size: 100) == .part(10...99))
        #expect(ByteRange(header: "bytes=-99999999999999999999", size: 100) == .part(0...99))
        #expect(ByteRange(header: "bytes=99999999999999999999-", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=99999999999999999999-99999999999999999999", size: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-\(String(repeating: "9", count: 10_000))", size: 1 << 40) == .part(0...((1 << 40) - 1)))
    }

    /// Random headers (mutations of valid ones): never a trap, and a part always lies inside the file.
    @Test func randomRangesStayInsideTheFile() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("bytes=0123456789-, \t9".utf8)
        for _ in 0..<20_000 {
            let size = Int64.random(in: 0...1_000, using: &generator)
            let header = String(decoding: (0..<Int.random(in: 0...30, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            if case let .part(part) = ByteRange(header: header, size: size) {
                #expect(part.lowerBound >= 0 && part.upperBound < size, "\(header) of \(size): \(part)")
            }
        }
    }

    @Test func listenAddresses() {
        #expect(ListenAddress("127.0.0.1:8002") == ListenAddress(host: "127.0.0.1", port: 8002))
        #expect(ListenAddress("8002") == ListenAddress(host: "127.0.0.1", port: 8002))
        #expect(ListenAddress("localhost:8002")?.isLoopback == true)
        #expect(ListenAddress("[::1]:8002") == ListenAddress(host: "::1", port: 8002))
        #expect(ListenAddress("0.0.0.0:8002")?.isLoopback == false)
        for text in ["", ":80", "127.0.0.1:", "127.0.0.1:65536", "example.com:80", "::1:80", "256.0.0.1:80", "1.2.3:80", "[::1]80"] {
            #expect(ListenAddress(text) == nil, "\(text)")
        }
    }
}
