import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Adds inotify watches for the scanner's threads and remembers, per directory the walk visited,
/// which watch covers it (or that none could be had). The watcher drains the registrations into
/// its directory tree once the scan is done. At the limit it stops asking the kernel and counts
/// what stays unwatched.
///
/// Listings an inspection makes on the way (a bundle's `Contents`, its lprojs) are watched before
/// they are listed too, but not registered: their paths may pass through a symlink (a framework's
/// `Resources` link) and name no directory of the tree. The walk registers the real directory when
/// it gets there (the same inode answers with the same watch); a watch no directory of the tree
/// ends up holding is taken back (`settle`).
final class WatchInstaller: Sendable {
    static let mask: InotifyMask = [
        .create, .delete, .movedFrom, .movedTo, .closeWrite, .modify, .attrib, .deleteSelf, .moveSelf, .onlyDirectory,
        .excludeUnlinked,
    ]

    let inotify: Inotify
    /// Filesystems watched whole (fanotify); directories there are registered, not watched one by one.
    let marks: FilesystemMarks?
    let limit: Int
    /// The live watches; the same inode watched twice is one watch.
    private let live = Mutex<Set<Int32>>([])
    private let registrations = Mutex(Registrations())
    /// Watches added for listings that were not registered, and the directories they watch.
    private let provisional = Mutex<[FileIdentity: Int32]>([:])

    init(inotify: Inotify, marks: FilesystemMarks?, limit: Int) {
        self.inotify = inotify
        self.marks = marks
        self.limit = limit
    }

    /// The scanner hook: watch a directory before it is listed. With a descriptor the watch goes on
    /// exactly the inode that was opened (through /proc/self/fd), whatever happened to the path.
    func watch(_ path: FilePath, descriptor: Descriptor?, visited: Bool) {
        var watch: Int32?
        if let marks, let number = marks.register(path, descriptor: descriptor) {
            watch = number
        } else if live.withLock({ $0.count >= limit }) {
            // At the limit the kernel is not asked: each watch it granted and this took back would
            // queue an IN_IGNORED event, thousands of them on every periodic rescan. A directory that
            // an inspection's listing watched in this scan (through another path) keeps that watch.
            if visited, let identity = Self.identity(path, descriptor) { watch = provisional.withLock { $0[identity] } }
        } else {
            do {
                let added: Int32
                if let descriptor {
                    added = try inotify.addWatch(FilePath("/proc/self/fd/\(descriptor.rawValue)"), mask: Self.mask)
                } else {
                    added = try inotify.addWatch(path, mask: Self.mask.union(.dontFollow))
                }
                // Admit it (a watch the inode already had is no new one) only while there is room,
                // deciding under the lock so that two threads cannot both take the last place.
                let admitted = live.withLock { live -> Bool in
                    if live.contains(added) { return true }
                    guard live.count < limit else { return false }
                    live.insert(added)
                    return true
                }
                if admitted { watch = added } else { inotify.removeWatch(added) }
            } catch {
                // ENOSPC: the kernel's limit came first (other programs hold watches too). ENOENT,
                // ENOTDIR: gone already; the parent's next listing settles it. Either way: unwatched.
            }
        }
        if visited {
            registrations.withLock { $0.append(path, watch: watch) }
        } else if let watch, let identity = Self.identity(path, descriptor) {
            provisional.withLock { $0[identity] = watch }
        }
    }

    private static func identity(_ path: FilePath, _ descriptor: Descriptor?) -> FileIdentity? {
        ((try? descriptor?.status()) ?? (try? FileStatus.of(path)))?.identity
    }

    /// What was registered since the last call.
    func drain() -> Registrations {
        registrations.withLock { registrations in
            defer { registrations = Registrations() }
            return registrations
        }
    }

    /// Takes back the watches added for listings that no directory of the tree holds (`isHeld`),
    /// once the registrations are drained.
    func settle(isHeld: (Int32) -> Bool) {
        let watches = provisional.withLock { provisional in
            defer { provisional.removeAll() }
            return Set(provisional.values)
        }
        remove(watches.filter { !isHeld($0) })
    }

    /// Removes watches whose directories left the tree (moved out), making room for others.
    func remove(_ watches: [Int32]) {
        marks?.remove(watches.filter(FilesystemMarks.isMarkNumber))
        let watches = watches.filter { !FilesystemMarks.isMarkNumber($0) }
        for watch in watches { inotify.removeWatch(watch) }
        forget(watches)
    }

    /// Watches the kernel dropped by itself (IN_IGNORED): their directories are gone.
    func forget(_ watches: [Int32]) {
        guard !watches.isEmpty else { return }
        live.withLock { live in for watch in watches { live.remove(watch) } }
    }

    var count: Int { live.withLock { $0.count } }

    var hook: @Sendable (FilePath, Descriptor?, Bool) -> Void {
        { [self] path, descriptor, visited in watch(path, descriptor: descriptor, visited: visited) }
    }
}
