import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One thread that runs queued jobs in order. The view tells the kernel what changed from here:
/// libfuse's notify calls must never run inside a request handler or while holding a lock a
/// handler needs, or they deadlock against the kernel waiting for that handler.
final class SerialWorker: Sendable {
    private let queue = ConditionMutex(Queue())

    private struct Queue: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var running = 0
        var stopped = false
        var thread: pthread_t?
    }

    func start() throws(SystemError) {
        let thread = try Threads.start(stackSize: 1 << 20) { [self] in loop() }
        queue.withLock { $0.thread = thread }
    }

    func enqueue(_ job: @escaping @Sendable () -> Void) {
        queue.withLock {
            guard !$0.stopped else { return }
            $0.jobs.append(job)
            queue.broadcast()
        }
    }

    /// Waits until every job queued so far has run.
    func drain() {
        queue.withLock(when: { $0.jobs.isEmpty && $0.running == 0 }) { _ in }
    }

    /// Runs what is queued, then ends the thread.
    func stop() {
        let thread = queue.withLock { queued -> pthread_t? in
            queued.stopped = true
            queue.broadcast()
            defer { queued.thread = nil }
            return queued.thread
        }
        if let thread { Threads.join(thread) }
    }

    private func loop() {
        while true {
            let batch: [@Sendable () -> Void]? = queue.withLock(when: { !$0.jobs.isEmpty || $0.stopped }) { queued in
                if queued.jobs.isEmpty { return nil }
                let batch = queued.jobs
                queued.jobs = []
                queued.running = batch.count
                return batch
            }
            guard let batch else { return }
            for job in batch { job() }
            queue.withLock {
                $0.running = 0
                queue.broadcast()
            }
        }
    }
}
