import Synchronization
import SystemCalls

/// What an open file or directory of the view holds until it is released.
enum Handle: Sendable {
    /// A directory's entries as they were at opendir: offsets stay valid however it changes.
    case directory(DirectorySnapshot)
    /// A real file, read with pread.
    case file(Descriptor)
    /// A package's tar, laid out at open.
    case package(PackageHandle)
    /// Synthesized bytes (an effective Info.plist).
    case bytes([UInt8])
}

/// An open package: the layout its reads are checked against, and the files they read from.
struct PackageHandle: Sendable {
    let layout: TarLayout
    let files = TarFileSource()
    let path: FilePath
    let node: UInt64
}

/// Open handles by the number the kernel passes back (`fh`).
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

    /// Open real files: on EMFILE the view closes nothing of its own (it holds no descriptor per
    /// node), so this only reports.
    var count: Int { state.withLock { $0.handles.count } }
}
