import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One thread that runs queued jobs in order. The view tells the kernel what changed from here:
/// libfuse's notify calls must never run inside a request handler or while holding a lock a
/// handler needs, or they deadlock against the kernel waiting for that handler.
final class SerialWorker: @unchecked Sendable {
    private let lock = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var running = 0
    private var stopped = false
    private var thread: pthread_t?

    func start() throws(SystemError) {
        thread = try Threads.start(stackSize: 1 << 20) { [self] in loop() }
    }

    func enqueue(_ job: @escaping @Sendable () -> Void) {
        lock.withLock {
            guard !stopped else { return }
            jobs.append(job)
            lock.broadcast()
        }
    }

    /// Waits until every job queued so far has run.
    func drain() {
        lock.withLock {
            while !jobs.isEmpty || running > 0 { lock.wait(seconds: 0.1) }
        }
    }

    /// Runs what is queued, then ends the thread.
    func stop() {
        lock.withLock {
            stopped = true
            lock.broadcast()
        }
        if let thread { Threads.join(thread) }
        thread = nil
    }

    private func loop() {
        while true {
            let batch: [@Sendable () -> Void]? = lock.withLock {
                while jobs.isEmpty && !stopped { lock.wait() }
                if jobs.isEmpty { return nil }
                let batch = jobs
                jobs = []
                running = batch.count
                return batch
            }
            guard let batch else { return }
            for job in batch { job() }
            lock.withLock {
                running = 0
                lock.broadcast()
            }
        }
    }
}
