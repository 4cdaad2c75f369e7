import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The fanotify side of the watcher: one mark per filesystem under the roots, and the handle of
/// every directory of the tree, each given a number the tree holds as it holds an inotify watch
/// (numbers from `firstNumber` up, never an inotify watch descriptor). A directory is "watched" by
/// registering its handle (name_to_handle_at on the descriptor the scanner is about to list),
/// which costs the kernel nothing. Events name directories by handle: one this table does not hold
/// is outside the roots, and is dropped before any path is built (one lookup in `HandleNumbers`).
///
/// A filesystem that cannot be marked (no CAP_SYS_ADMIN, or one that cannot be marked whole) or
/// gives no handles is left to inotify (`register` answers nil), and is named in `inotifySubtrees`.
final class FilesystemMarks: Sendable {
    static let firstNumber: Int32 = 1 << 30

    let fanotify: Fanotify
    private let state = Mutex(State())

    private struct State: Sendable {
        /// The handle of number `firstNumber + i` at index i.
        var handles = HandleNumbers()
        var marked: Set<UInt64> = []
        /// Filesystems left to inotify, with the first directory met on each (the top of the subtree).
        var refused: [UInt64: (path: FilePath, reason: String)] = [:]
        /// Directories that gave no handle (their filesystem's id is not known then).
        var handleless: [FilePath] = []
        var nextCookie: UInt32 = 1 << 31

        func number(of handle: DirectoryHandle) -> Int32? { handles.index(of: handle).map { FilesystemMarks.firstNumber + Int32($0) } }
    }

    init(fanotify: Fanotify) { self.fanotify = fanotify }

    /// Marks the filesystem of a root and checks that it gives handles; throws why not.
    func prepare(root: FilePath) throws(SystemError) {
        let handle = try DirectoryHandle.of(descriptor: nil, path: root)
        if state.withLock({ $0.marked.contains(handle.fsid) }) { return }
        try fanotify.markFilesystem(of: root)
        state.withLock { _ = $0.marked.insert(handle.fsid) }
    }

    /// The number for a directory about to be listed, marking its filesystem when it is the first
    /// met there; nil when inotify must watch it.
    func register(_ path: FilePath, descriptor: Descriptor?) -> Int32? {
        let handle: DirectoryHandle
        do {
            handle = try DirectoryHandle.of(descriptor: descriptor, path: path)
        } catch {
            // ENOENT: gone already (its parent's next listing settles it); otherwise no handles here.
            if error.errno != ENOENT { state.withLock { noteHandleless(path, in: &$0) } }
            return nil
        }
        let known = state.withLock { state -> Bool? in
            if state.marked.contains(handle.fsid) { return true }
            return state.refused[handle.fsid] == nil ? nil : false
        }
        if known == nil {
            // A filesystem met for the first time below a root (a mount point): mark it too.
            do {
                try fanotify.markFilesystem(of: descriptor.map { FilePath("/proc/self/fd/\($0.rawValue)") } ?? path)
                state.withLock { _ = $0.marked.insert(handle.fsid) }
            } catch {
                state.withLock { state in
                    if state.refused[handle.fsid] == nil { state.refused[handle.fsid] = (path, error.message) }
                }
                return nil
            }
        } else if known == false {
            return nil
        }
        return state.withLock { Self.firstNumber + Int32($0.handles.insert(handle)) }
    }

    private func noteHandleless(_ path: FilePath, in state: inout State) {
        guard !state.handleless.contains(where: { path.isWithin($0) }) else { return }
        state.handleless.removeAll { $0.isWithin(path) }
        state.handleless.append(path)
    }

    static func isMarkNumber(_ watch: Int32) -> Bool { watch >= firstNumber }

    /// Forgets directories that left the tree: their events are dropped from now on.
    func remove(_ numbers: [Int32]) {
        guard !numbers.isEmpty else { return }
        state.withLock { state in
            for number in numbers { state.handles.remove(index: Int(number - Self.firstNumber)) }
        }
    }

    var count: Int { state.withLock { $0.handles.count } }

    /// The subtrees inotify watches, and why.
    var inotifySubtrees: [String] {
        state.withLock { state in
            state.refused.values.map { "\($0.path) (\($0.reason))" }.sorted()
                + state.handleless.map { "\($0) (no file handles)" }
        }
    }

    /// Reads what the group has queued, in reads that fill `buffer`, and translates it
    /// (`translate`). Answers the events kept and the number dropped outside the roots.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> (events: [InotifyEvent], dropped: Int) {
        var events: [InotifyEvent] = []
        var dropped = 0
        while true {
            let count = try fanotify.read(into: buffer)
            if count == 0 { break }
            dropped += translate(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), into: &events)
            // A read returns whole events only; one that filled less than half the buffer drained the queue.
            if count < buffer.count / 2 { break }
        }
        return (events, dropped)
    }

    /// The events of a buffer read from the group as the rest of the watcher reads them: inotify's,
    /// with the directories' numbers for watch descriptors, appended to `translated`; answers how
    /// many were dropped. An event in a directory not held is dropped where it lies in the buffer,
    /// after one lookup of its handle's bytes: no name is made for it. A rename is a MOVED_FROM
    /// and a MOVED_TO with one cookie, or only one of them when the other end is outside the
    /// roots (a move in or out). The table is locked once for the whole buffer.
    func translate(_ buffer: UnsafeRawBufferPointer, into translated: inout [InotifyEvent]) -> Int {
        state.withLock { state in
            var dropped = 0
            Fanotify.forEachEvent(in: buffer) { event in
                if event.mask.contains(.queueOverflow) {
                    translated.append(InotifyEvent(watch: -1, mask: .queueOverflow, cookie: 0, name: nil))
                    return
                }
                let from = event.directory.flatMap { state.number(of: $0.handle) }
                let to = event.mask.contains(.rename) ? event.newDirectory.flatMap { state.number(of: $0.handle) } : nil
                guard from != nil || to != nil else {
                    dropped += 1
                    return
                }
                let directoryFlag: InotifyMask = event.mask.contains(.onDirectory) ? .isDirectory : []
                if event.mask.contains(.rename) {
                    state.nextCookie &+= 1
                    if let from { translated.append(InotifyEvent(watch: from, mask: directoryFlag.union(.movedFrom), cookie: state.nextCookie, name: event.directory?.name)) }
                    if let to { translated.append(InotifyEvent(watch: to, mask: directoryFlag.union(.movedTo), cookie: state.nextCookie, name: event.newDirectory?.name)) }
                    return
                }
                // Not a rename: `to` is nil, so the guard above left `from`.
                guard let from else { return }
                var mask = directoryFlag
                for (fan, ino) in Self.masks where event.mask.contains(fan) { mask.insert(ino) }
                // Without FAN_RENAME the two halves of a move cannot be paired: each is its own.
                var cookie: UInt32 = 0
                if event.mask.contains(.movedFrom) || event.mask.contains(.movedTo) {
                    state.nextCookie &+= 1
                    cookie = state.nextCookie
                }
                translated.append(InotifyEvent(watch: from, mask: mask, cookie: cookie, name: event.directory?.name))
            }
            return dropped
        }
    }

    private static let masks: [(FanotifyMask, InotifyMask)] = [
        (.create, .create), (.delete, .delete), (.modify, .modify), (.attrib, .attrib), (.closeWrite, .closeWrite),
        (.movedFrom, .movedFrom), (.movedTo, .movedTo), (.deleteSelf, .deleteSelf), (.moveSelf, .moveSelf),
    ]
}
