import Logging
@testable import SymbolServer
import Synchronization
import Testing

/// The server's rate-limited warnings: one line per kind and minute, and kinds told apart by
/// their bytes, since a kind may name a file and NFC and NFD twins are two files.
@Suite struct RateLimitedLogTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
    }

    struct Recording: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.lines.withLock { $0.append("\(event.message)") }
        }
    }

    @Test func kindsAreToldApartByTheirBytes() {
        let recorded = Lines()
        let log = RateLimitedLog(logger: Logger(label: "test") { _ in Recording(lines: recorded) })
        let nfc = "not served: /tree/R\u{E9}sum\u{E9}.app/Tool", nfd = "not served: /tree/Re\u{301}sume\u{301}.app/Tool"
        #expect(nfc == nfd) // one String to Swift: the bytes differ
        for _ in 0..<3 {
            log.warning(nfc, "NFC")
            log.warning(nfd, "NFD")
        }
        #expect(recorded.lines.withLock { $0 } == ["NFC", "NFD"])
    }
}
