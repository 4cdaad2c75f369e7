import CSystemShims

public enum Memory {
    /// Hands free heap pages back to the kernel (glibc's `malloc_trim(0)`): after a burst of
    /// short-lived allocations, a long-running process otherwise keeps its peak as resident memory.
    public static func returnFreePages() { _ = bfs_malloc_trim() }

    /// For a daemon, before its threads start: at most two malloc arenas. glibc gives threads up to
    /// eight per core, and the watcher's, the scanners' and the view's threads each filling one
    /// kept 10 MB more resident at a million entries (`mount` peaked at 144-152 MB, 127-137 MB
    /// with two), for no speed the daemon measurably gains.
    public static func limitArenasForDaemon() { _ = bfs_limit_malloc_arenas(2) }
}
