import CFuse
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Serves a session's requests on one thread while each is answered quickly, and on more only
/// once one is not. libfuse's multithreaded loop keeps a second thread waiting in `read` while one
/// answers; the kernel gives each request to the thread that has waited longest, so the requests
/// of a walk, one at a time, alternate between threads, each woken where the other ran. A first
/// `ls -R` of a symbol store took 1.4 times as long that way as on one thread (medians of six
/// alternating runs: 3.90 s, 2.71 s; this loop 2.76 s).
///
/// Here one thread, the reader, reads and answers. A watch hands reading on when the reader's
/// request has taken `handOffAfter`: to a thread waiting for the role, else to a new one (up to
/// `maxThreads`), and the slow one waits for the role again once it has answered. The watch looks
/// every `watchInterval` while requests come, and sleeps when none came for `idleAfter`.
/// Unchecked: `session` is libfuse's session pointer, whose receive, process and exit calls
/// libfuse takes from any thread; everything else is under `state`.
final class RelayLoop: @unchecked Sendable {
    private struct State: Sendable {
        /// The worker that reads (and answers what it read); nil while the role is free.
        var reader: Int?
        /// Its thread while it may be blocked in `read`, to interrupt at a stop.
        var readerThread: pthread_t?
        var nextWorker = 0
        /// Workers alive, and those waiting for the role.
        var workers = 0
        var waiting = 0
        /// When the reader's request began (monotonic seconds); nil between requests.
        var busySince: Double?
        var requests: UInt64 = 0
        var watchAsleep = false
        var exited = false
        var result: Int32 = 0

        /// Counts a new worker; its id.
        mutating func addWorker() -> Int {
            workers += 1
            nextWorker += 1
            return nextWorker - 1
        }
    }

    private let state = ConditionMutex(State())
    private let session: OpaquePointer
    let maxThreads: Int
    /// A request is slow past 20 ms; looked at every 5 ms. Shorter (2 ms, each millisecond)
    /// measured no faster than libfuse's loop: the group listings of a symbol store (about 3 ms)
    /// were handed on, and the watch woke five times as often.
    static let handOffAfter = 0.02
    static let watchInterval = 0.005
    static let idleAfter = 0.5

    init(session: OpaquePointer, maxThreads: Int) {
        self.session = session
        self.maxThreads = max(1, maxThreads)
    }

    /// Serves until the session exits (`stop`, or an unmount), on the calling thread and those
    /// it starts; returns libfuse's result when every one has ended.
    func run() -> Int32 {
        let first = state.withLock { $0.addWorker() }
        // Without a watch (no thread to spare), no request is handed on: one thread serves all.
        let watch = try? Threads.start(stackSize: 256 << 10) { [self] in watchReader() }
        work(first)
        state.withLock(when: { $0.workers == 0 }) { _ in }
        if let watch { Threads.join(watch) }
        fuse_session_reset(session)
        return state.withLock { $0.result }
    }

    /// Interrupts the reader's `read` (after `fuse_session_exit`), so that it sees the exit.
    func interruptReader() {
        if let thread = state.withLock({ $0.readerThread }) { pthread_kill(thread, SIGUSR1) }
    }

    private func work(_ id: Int) {
        Signals.acceptInterruptions(by: SIGUSR1)
        var buffer = fuse_buf()
        defer {
            free(buffer.mem)
            state.withLock { $0.workers -= 1 }
            state.broadcast()
        }
        while true {
            state.withLock { $0.waiting += 1 }
            let reads = state.withLock(when: { $0.reader == nil || $0.exited }) { state -> Bool in
                state.waiting -= 1
                guard !state.exited else { return false }
                state.reader = id
                state.readerThread = pthread_self()
                return true
            }
            guard reads else { return }
            serve(id, &buffer)
        }
    }

    /// Reads and answers requests while `id` is the reader.
    private func serve(_ id: Int, _ buffer: inout fuse_buf) {
        while true {
            if fuse_session_exited(session) != 0 { return finish(0) }
            let received = fuse_session_receive_buf(session, &buffer)
            if received == -EINTR { continue }
            if received <= 0 { return finish(received) }
            let wakesWatch = state.withLock { state -> Bool in
                state.busySince = Clocks.monotonicSeconds()
                state.readerThread = nil
                state.requests &+= 1
                defer { state.watchAsleep = false }
                return state.watchAsleep
            }
            if wakesWatch { state.broadcast() }
            fuse_session_process_buf(session, &buffer)
            let stillReads = state.withLock { state -> Bool in
                guard state.reader == id else { return false }
                state.busySince = nil
                state.readerThread = pthread_self()
                return true
            }
            guard stillReads else { return }
        }
    }

    private func finish(_ result: Int32) {
        state.withLock { state in
            if !state.exited { state.result = result < 0 ? result : 0 }
            state.exited = true
            state.reader = nil
            state.readerThread = nil
        }
        state.broadcast()
    }

    private enum WatchStep {
        case ended, quiet, handedOn, handedToNewWorker(Int)
    }

    /// Hands reading on from a reader whose request is taking long.
    private func watchReader() {
        var lastRequests: UInt64 = 0
        var quietSince = Clocks.monotonicSeconds()
        while true {
            let step = state.withLock(when: { $0.exited }, timeout: Self.watchInterval) { state -> WatchStep in
                guard !state.exited else { return .ended }
                let now = Clocks.monotonicSeconds()
                if state.requests != lastRequests {
                    lastRequests = state.requests
                    quietSince = now
                }
                guard let since = state.busySince, state.reader != nil, now - since >= Self.handOffAfter else {
                    if state.busySince == nil && now - quietSince >= Self.idleAfter { state.watchAsleep = true }
                    return .quiet
                }
                state.reader = nil
                state.busySince = nil
                guard state.waiting == 0, state.workers < maxThreads else { return .handedOn }
                return .handedToNewWorker(state.addWorker())
            }
            switch step {
            case .ended:
                return
            case .quiet:
                break
            case .handedOn:
                state.broadcast()
            case let .handedToNewWorker(id):
                do {
                    pthread_detach(try Threads.start(stackSize: 8 << 20) { [self] in work(id) })
                } catch {
                    // None to spare: the slow worker reads again once it has answered.
                    state.withLock { $0.workers -= 1 }
                }
            }
            state.withLock(when: { !$0.watchAsleep || $0.exited }) { _ in }
        }
    }
}
