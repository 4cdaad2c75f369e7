import Logging
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Which backend watches the roots (`WatchSettings.backend`): fanotify marks where the process may
/// mark the roots' filesystems, inotify otherwise.
extension Watcher {
    /// The marks for the roots, or nil for inotify alone. `.fanotify` fails (one line) when a root's
    /// filesystem cannot be marked; `.auto` then says so in the log and uses inotify.
    static func filesystemMarks(_ backend: WatchBackend, roots: [FilePath], logger: Logger) throws -> FilesystemMarks? {
        guard backend != .inotify else { return nil }
        let marks: FilesystemMarks
        do {
            marks = FilesystemMarks(fanotify: try Fanotify())
        } catch {
            if backend == .fanotify { throw WatchError.fanotifyUnavailable(error) }
            logger.info("watching with inotify: fanotify is not available (\(error.operation): \(error.message))")
            return nil
        }
        var refused: [(FilePath, SystemError)] = []
        for root in roots {
            do {
                try marks.prepare(root: root)
            } catch {
                if backend == .fanotify { throw WatchError.fanotifyUnavailable(error) }
                refused.append((root, error))
            }
        }
        // Not one root could be marked (no CAP_SYS_ADMIN, most likely): inotify alone, without
        // asking the kernel again for every directory.
        if refused.count == roots.count, let (root, error) = refused.first {
            logger.info("watching with inotify: the filesystem of \(root) cannot be marked with fanotify (\(error.message))")
            return nil
        }
        for (root, error) in refused {
            logger.info("watching \(root) with inotify: its filesystem cannot be marked with fanotify (\(error.message))")
        }
        return marks
    }

    /// For the log: "fanotify", "inotify", or fanotify with the subtrees inotify watches.
    var backendDescription: String {
        guard let marks = installer.marks else { return "inotify" }
        let subtrees = marks.inotifySubtrees
        return subtrees.isEmpty ? "fanotify" : "fanotify (inotify for \(subtrees.joined(separator: ", ")))"
    }
}
