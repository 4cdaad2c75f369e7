import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Rule 12 for an index: links are followed as CFBundle follows them, out of the indexed root too
/// (Debian links `/usr/lib/GNUstep/Applications/X.app/Resources` into `/usr/share/GNUstep`), but
/// only links owned by root or by the indexing user. A link another user planted in a shared tree
/// could otherwise make a daemon read, catalogue and publish any file it may read (the rule of the
/// kernel's `protected_symlinks`, applied to leaving the tree). Inside the root every link is
/// followed, as before.
enum TrustedLinks {
    /// Symlinks followed while resolving one path, at most (the kernel's own limit).
    static let maximumHops = 40

    /// Opens `relative` from the directory `root` (an O_PATH descriptor of `rootPath`), resolving
    /// it one component at a time; a symlink whose owner is not trusted fails with EXDEV, as
    /// RESOLVE_BENEATH does. `followFinal` false leaves a final symlink unfollowed (O_NOFOLLOW).
    static func open(_ relative: FilePath, from root: Descriptor, rootPath: FilePath, flags: Int32, followFinal: Bool) throws -> Descriptor {
        var pending = relative.components
        var directory = root
        var hops = 0
        while !pending.isEmpty {
            let name = pending.removeFirst()
            let isLast = pending.isEmpty
            if name == "." { if isLast { return try directory.open(".", flags: flags) } else { continue } }
            let status = try directory.status(of: name)
            if status.type == .symlink && (!isLast || followFinal) {
                hops += 1
                guard hops <= maximumHops else { throw SystemError(errno: ELOOP, operation: "open", path: rootPath.appending(relative).string) }
                guard isTrusted(owner: status.userID) else { throw SystemError(errno: EXDEV, operation: "open", path: rootPath.appending(relative).string) }
                let target = try directory.readLink(name)
                if target.isAbsolute { directory = try Descriptor.open(.root, flags: O_PATH_DIRECTORY) }
                pending = target.components + pending
                continue
            }
            if isLast { return try directory.open(name, flags: flags | O_NOFOLLOW_IF(status.type != .symlink || !followFinal)) }
            directory = try directory.open(name, flags: O_PATH_DIRECTORY | O_NOFOLLOW)
        }
        return try directory.open(".", flags: flags)
    }

    /// Root's links and the indexing user's own.
    static func isTrusted(owner: UInt32) -> Bool { owner == 0 || owner == geteuid() }
}
