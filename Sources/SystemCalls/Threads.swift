#if canImport(Glibc)
public import Glibc
#endif

/// A mutex with a condition variable, for the few places that must wait for work (Swift's
/// `Mutex` has no condition). Timed waits run on the monotonic clock: a wall clock set back by
/// an hour (NTP, a user) must not turn a 20 ms wait into an hour.
/// Unchecked: it is the lock; the pthread mutex and condition behind its pointers are shared by design.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The clock timed waits measure their deadlines on.
    public static let clock = CLOCK_MONOTONIC

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, Self.clock)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call only inside `withLock`, in a loop re-checking the predicate.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits at most `seconds`; returns false on timeout. Call only inside `withLock`.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(Self.clock, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        var deadline = timespec(tv_sec: Int(total), tv_nsec: Int((total - total.rounded(.down)) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// State reached only under a lock, with waits for a condition on it: what `Mutex` is, plus the
/// condition variable it lacks, so that classes which wait for one another keep only `let`s and
/// are checked `Sendable`. A wait re-reads the state through its predicate each time it wakes
/// and holds no access to the state while asleep: an `inout` held across the sleep would let the
/// compiler keep values in registers that other threads change meanwhile.
public final class ConditionMutex<State: Sendable>: @unchecked Sendable { // `state` is only reached under `lock`
    private let lock = ConditionLock()
    private var state: State

    public init(_ state: State) { self.state = state }

    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try lock.withLock { try body(&state) }
    }

    /// Waits until `ready(state)` holds (or, with a timeout, at most `seconds`), then runs `body`
    /// under the same hold of the lock.
    public func withLock<R>(when ready: (State) -> Bool, timeout seconds: Double? = nil, _ body: (inout State) throws -> R) rethrows -> R {
        try lock.withLock {
            if let seconds {
                let deadline = Clocks.monotonicSeconds() + seconds
                while !ready(state) {
                    let remaining = deadline - Clocks.monotonicSeconds()
                    guard remaining > 0, lock.wait(seconds: remaining) else { break }
                }
            } else {
                while !ready(state) { lock.wait() }
            }
            return try body(&state)
        }
    }

    /// Wakes one waiting thread, or all, to test its predicate again (after the state changed).
    public func signal() { lock.signal() }
    public func broadcast() { lock.broadcast() }
}

/// Runs `body(index)` on `count` new threads with the given stack size and waits for all.
public enum Threads {
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Starts a joinable thread running `body`; fails (EAGAIN) when the process or its user may have
    /// no more threads, which a daemon reports instead of ending.
    public static func start(stackSize: Int = 8 << 20, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> pthread_t {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            throw SystemError(errno: result, operation: "pthread_create")
        }
        return thread
    }

    public static func join(_ thread: pthread_t) { pthread_join(thread, nil) }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
