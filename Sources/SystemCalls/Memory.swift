import CSystemShims

public enum Memory {
    /// Hands free heap pages back to the kernel (glibc's `malloc_trim(0)`): after a burst of
    /// short-lived allocations, a long-running process otherwise keeps its peak as resident memory.
    public static func returnFreePages() { _ = bfs_malloc_trim() }
}
