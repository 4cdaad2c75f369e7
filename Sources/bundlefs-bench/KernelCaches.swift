import Foundation

/// What the kernel's inode and dentry caches hold when a figure is taken. Their hash tables are
/// sized at boot (this machine's kernel command line pins `ihash_entries=65536`), so with the
/// million-entry tree and the other trees of earlier runs cached, every path an index opens walks
/// chains of dozens of inodes (`find_inode_fast` was 14% of a first index's samples with 1.8
/// million cached), while `find`, which opens nothing, is not slowed: the first index's ratio
/// moved from 2x to 5x with the cache alone (Docs/benchmarks.md).
enum KernelCaches {
    /// `kernel caches: N inodes, M dentries (ihash_entries=…, dhash_entries=…)`.
    static func summary() -> String {
        let inodes = firstNumber("/proc/sys/fs/inode-nr"), dentries = firstNumber("/proc/sys/fs/dentry-state")
        let command = (try? String(contentsOfFile: "/proc/cmdline", encoding: .utf8)) ?? ""
        let sizes = command.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("ihash_entries=") || $0.hasPrefix("dhash_entries=") }
        return "kernel caches: \(inodes) inodes, \(dentries) dentries" + (sizes.isEmpty ? "" : " (\(sizes.joined(separator: ", ")))")
    }

    private static func firstNumber(_ path: String) -> Int {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 0
    }
}
