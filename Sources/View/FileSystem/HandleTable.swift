import Synchronization
import SystemCalls

/// What an open directory of the view holds until it is released (files need no handle: their
/// reads go by node).
enum Handle: Sendable {
    /// A directory's entries as they were at opendir: offsets stay valid however it changes.
    case directory(DirectorySnapshot)
}

/// Open directory handles by the number the kernel passes back (`fh`), for kernels that send
/// OPENDIR.
final class HandleTable: Sendable {
    private struct State {
        var handles: [UInt64: Handle] = [:]
        var next: UInt64 = 1
    }

    private let state = Mutex(State())

    func add(_ handle: Handle) -> UInt64 {
        state.withLock { state in
            let number = state.next
            state.next += 1
            state.handles[number] = handle
            return number
        }
    }

    func handle(_ number: UInt64) -> Handle? { state.withLock { $0.handles[number] } }

    func remove(_ number: UInt64) { _ = state.withLock { $0.handles.removeValue(forKey: number) } }
}
