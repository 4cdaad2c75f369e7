import SystemCalls

/// The scanner's shared to-do list: last in, first out, so the walk stays depth-first and the
/// list stays short. `pop` waits while others may still add work, and returns nil once every
/// thread is idle and nothing is left.
/// Unchecked: its vars are touched only inside `lock.withLock`. `pop` waits on the lock's condition,
/// which `Mutex` cannot, once per directory of the scan's hot path (see `EventChannel`).
final class WorkStack<Task: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var tasks: [Task] = []
    private var active = 0

    func push(_ task: Task) {
        lock.withLock {
            tasks.append(task)
            lock.signal()
        }
    }

    func push(contentsOf newTasks: [Task]) {
        guard !newTasks.isEmpty else { return }
        lock.withLock {
            tasks.append(contentsOf: newTasks)
            lock.broadcast()
        }
    }

    /// The next task, marking the caller active; nil when all work is done.
    func pop() -> Task? {
        lock.withLock {
            while tasks.isEmpty && active > 0 { lock.wait() }
            guard let task = tasks.popLast() else { return nil }
            active += 1
            return task
        }
    }

    /// Marks the caller idle after a popped task is finished.
    func finished() {
        lock.withLock {
            active -= 1
            if active == 0 && tasks.isEmpty { lock.broadcast() }
        }
    }
}
