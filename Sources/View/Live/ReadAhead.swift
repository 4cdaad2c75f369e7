import Dispatch
import Synchronization
import SystemCalls

/// Listings made ahead on another processor while the kernel and the program walking a tree
/// handle the listing that named them. A walk (`ls -R`, `find`) asks for each subdirectory next,
/// one request at a time, so the daemon's work for a directory made meanwhile leaves that request's
/// path, and the processor a walk leaves idle does it.
///
/// A value is handed out once, only for the `version` it was made at (the caller's count of
/// updates) and at most `lifetime` seconds after it was made: never older than what the kernel
/// itself may keep. Newest first, since a walk descends into what it listed last; at most
/// `capacity` keys wait, and as many values are kept.
final class ReadAhead<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Makes a key's value, with the version it was made at; nil when it cannot be made without
    /// work the request would have to wait for anyway (a catalogue query).
    typealias Maker = @Sendable (Key) -> (value: Value, version: Int)?

    private struct Made: Sendable {
        var value: Value
        var version: Int
        var madeAt: Double
    }

    private struct State: Sendable {
        var waiting: [Key] = []
        var made: [Key: Made] = [:]
        /// The maker of the keys waiting, released when none is left.
        var maker: Maker?
        var running = false
    }

    private let state = Mutex(State())
    let capacity: Int
    let lifetime: Double

    init(capacity: Int = 4_096, lifetime: Double) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// Makes `keys` ahead, in their order, before any scheduled earlier; those made already
    /// are not made again. A maker may schedule more (what lies below its key): they come next.
    func schedule(_ keys: [Key], make: @escaping Maker) {
        let starts = state.withLock { state -> Bool in
            let fresh = keys.filter { state.made[$0] == nil }
            guard !fresh.isEmpty else { return false }
            state.waiting.append(contentsOf: fresh.reversed())
            if state.waiting.count > capacity { state.waiting.removeFirst(state.waiting.count - capacity) }
            state.maker = make
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if starts { DispatchQueue.global(qos: .utility).async { [self] in run() } }
    }

    /// The value made ahead for `key` at `version`, if it is still fresh; it is not kept after.
    func take(_ key: Key, version: Int) -> Value? {
        state.withLock { state in
            guard let made = state.made.removeValue(forKey: key), made.version == version,
                  Clocks.monotonicSeconds() - made.madeAt < lifetime
            else { return nil }
            return made.value
        }
    }

    private func run() {
        while let (key, make) = next() {
            guard let (value, version) = make(key) else { continue }
            let now = Clocks.monotonicSeconds()
            state.withLock { state in
                if state.made.count >= capacity { state.made = state.made.filter { now - $0.value.madeAt < lifetime } }
                if state.made.count < capacity { state.made[key] = Made(value: value, version: version, madeAt: now) }
            }
        }
    }

    private func next() -> (Key, Maker)? {
        state.withLock { state in
            while let key = state.waiting.popLast() {
                if state.made[key] == nil, let maker = state.maker { return (key, maker) }
            }
            state.running = false
            state.maker = nil
            return nil
        }
    }
}
