import CFuse
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Why mounting failed, said plainly.
public struct MountError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One libfuse low-level session: created with the view's operations, mounted read-only, run by
/// one thread or several, told to stop from another thread, and the way invalidations reach the
/// kernel.
/// Unchecked: `handle` is libfuse's session pointer (pointers are not Sendable), whose exit, notify
/// and loop calls libfuse takes from any thread; `mounted` is touched only by the thread that
/// mounts and unmounts, `loopThread` and `loopFinished` only under `stopping`.
final class FuseSession: @unchecked Sendable {
    let handle: OpaquePointer
    private var mounted = false
    private var loopThread: pthread_t?
    private let stopping = ConditionLock()
    private var loopFinished = false
    /// The loop of several threads, whose reader a stop interrupts.
    private var relay: RelayLoop?
    /// Keeps the file system alive for as long as libfuse holds a pointer to it.
    private let fileSystem: ViewFileSystem

    init(fileSystem: ViewFileSystem, options: [String]) throws {
        self.fileSystem = fileSystem
        var ops = FuseOperations.table()
        let arguments = ["bundlefs", "-o", options.joined(separator: ",")]
        let strings = arguments.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: strings.count + 1)
        defer { argv.deallocate() }
        for (index, string) in strings.enumerated() { argv[index] = string }
        argv[strings.count] = nil
        var args = fuse_args(argc: Int32(strings.count), argv: argv, allocated: 0)
        let userdata = Unmanaged.passUnretained(fileSystem).toOpaque()
        guard let session = fuse_session_new(&args, &ops, MemoryLayout<fuse_lowlevel_ops>.size, userdata) else {
            throw MountError("libfuse refused the session options \(options.joined(separator: ","))")
        }
        if args.allocated != 0 { fuse_opt_free_args(&args) }
        handle = session
    }

    deinit {
        if mounted { fuse_session_unmount(handle) }
        fuse_session_destroy(handle)
    }

    func mount(at mountPoint: FilePath) throws {
        let result = try mountPoint.withCString { fuse_session_mount(handle, $0) }
        if result != 0 { throw MountError("could not mount on \(mountPoint) (is /dev/fuse usable, and fusermount3 installed?)") }
        mounted = true
    }

    /// Serves requests on the calling thread (and, with `threads` > 1, on libfuse's workers)
    /// until `stop()` or an unmount from outside.
    func run(threads: Int) -> Int32 {
        stopping.withLock { loopThread = pthread_self() }
        // Only this thread takes the wake-up signal, which interrupts its read of /dev/fuse.
        Signals.acceptInterruptions(by: SIGUSR1)
        let relay = threads > 1 ? RelayLoop(session: handle, maxThreads: threads) : nil
        stopping.withLock { self.relay = relay }
        let result = relay?.run() ?? fuse_session_loop(handle)
        stopping.withLock { loopFinished = true }
        stopping.broadcast()
        return result
    }

    /// Ends the loop from another thread: marks the session exited and interrupts the loop's
    /// blocking read, again until it notices (a signal can land just before the read starts).
    func stop() {
        fuse_session_exit(handle)
        // Before the loop starts, the exit flag alone stops it: the loop checks it first.
        guard let thread = stopping.withLock({ loopThread }) else { return }
        for _ in 0..<100 {
            if stopping.withLock({ loopFinished }) { return }
            if let relay = stopping.withLock({ relay }) { relay.interruptReader() } else { pthread_kill(thread, SIGUSR1) }
            _ = stopping.withLock { stopping.wait(seconds: 0.05) }
        }
    }

    func unmount() {
        guard mounted else { return }
        fuse_session_unmount(handle)
        mounted = false
    }

    /// Drops the kernel's cached attributes and data (and, for a directory, its cached entries).
    func invalidateInode(_ id: UInt64) -> Int32 {
        fileSystem.requests.count(.invalidateInode)
        return fuse_lowlevel_notify_inval_inode(handle, id, 0, 0)
    }

    /// Drops the kernel's cached entry (positive or negative) for a name in a directory.
    func invalidateEntry(_ parent: UInt64, _ name: FileName) -> Int32 {
        fileSystem.requests.count(.invalidateEntry)
        let bytes = name.bytes
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { fuse_lowlevel_notify_inval_entry(handle, parent, $0.baseAddress, bytes.count) }
        }
    }
}
