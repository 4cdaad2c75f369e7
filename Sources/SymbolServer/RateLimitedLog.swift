import Logging
import NIOCore
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Warnings that a flood would repeat for every request (out of descriptors, a catalogue that
/// cannot be read): one line per kind and interval, and the next says how many it stood for.
final class RateLimitedLog: Sendable {
    let logger: Logger
    let interval: TimeAmount
    /// By the kind's bytes: a kind may name a file, and two files whose names are NFC and NFD
    /// twins are two (Swift's `String` equality would make them one).
    private let state = Mutex<[[UInt8]: (since: NIODeadline, suppressed: Int)]>([:])

    init(logger: Logger, interval: TimeAmount = .seconds(60)) {
        self.logger = logger
        self.interval = interval
    }

    func warning(_ kind: String, _ message: @autoclosure () -> String) {
        let kind = Array(kind.utf8)
        let now = NIODeadline.now()
        let suppressed: Int? = state.withLock { state in
            if let entry = state[kind], now - entry.since < interval {
                state[kind]!.suppressed += 1
                return nil
            }
            let suppressed = state[kind]?.suppressed ?? 0
            state[kind] = (now, 0)
            return suppressed
        }
        guard let suppressed else { return }
        let more = suppressed > 0 ? " (and \(suppressed) more since the last such line)" : ""
        logger.warning("\(message())\(more)")
    }
}

/// Whether an error is the process or the system running out of descriptors: what a `503` with
/// `Retry-After` answers, never a `404` that debuginfod clients would cache.
func isOutOfDescriptors(_ error: any Error) -> Bool {
    let code: Int32? = switch error {
    case let error as SystemError: error.errno
    case let error as IOError: error.errnoCode
    default: nil
    }
    return code == EMFILE || code == ENFILE
}
