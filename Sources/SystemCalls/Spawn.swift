#if canImport(Glibc)
import Glibc
#endif
import CSystemShims

/// Starting a copy of this program, for daemonizing without fork (forking a process that has
/// started threads, as the Swift runtime may have, is not safe).
public enum Spawn {
    /// Starts /proc/self/exe with `arguments` (argv[0] excluded) and extra environment variables;
    /// its standard output goes to `standardOutput`, stdin and stderr are inherited.
    public static func this(arguments: [String], environment extra: [String: String], standardOutput: Int32) throws -> Int32 {
        try start("/proc/self/exe", name: "bundlefs", arguments: arguments, environment: extra, standardOutput: standardOutput)
    }

    /// Runs `executable` with its standard streams on /dev/null and waits for it; for programs
    /// that leave a daemon behind (bindfs), which must not hold any of our descriptors.
    public static func runDetached(_ executable: String, arguments: [String], environment: [String: String] = [:]) throws -> Int32 {
        let null = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw SystemError.last("open", path: "/dev/null") }
        defer { close(null) }
        return wait(try start(executable, name: executable, arguments: arguments, environment: environment, standardOutput: null, standardError: null))
    }

    /// posix_spawn with every descriptor but the standard streams closed in the child.
    static func start(_ executable: String, name: String, arguments: [String], environment extra: [String: String],
                      standardOutput: Int32, standardError: Int32? = nil) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        if let standardError {
            posix_spawn_file_actions_adddup2(&actions, standardError, 2)
            posix_spawn_file_actions_adddup2(&actions, standardError, 0)
        }
        bfs_spawn_close_from(&actions, 3)
        let argv = try ([name] + arguments).map { argument in try FileNameCoding.withCString(argument) { strdup($0) } }
        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if !extra.keys.contains(where: { text.hasPrefix($0 + "=") }) { environment.append(text) }
            index += 1
        }
        environment += extra.map { "\($0.key)=\($0.value)" }
        let envp = environment.map { strdup($0) }
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
            (envp + [nil]).withUnsafeBufferPointer { envpBuffer in
                posix_spawn(&pid, executable, &actions, nil,
                            UnsafeMutablePointer(mutating: argvBuffer.baseAddress!), UnsafeMutablePointer(mutating: envpBuffer.baseAddress!))
            }
        }
        if result != 0 { throw SystemError(errno: result, operation: "posix_spawn", path: executable) }
        return pid
    }

    /// A pipe whose ends are closed on exec (a child gets only what is dup'ed onto its fds).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        if bfs_pipe2(&ends, O_CLOEXEC) != 0 { throw SystemError.last("pipe2") }
        return (ends[0], ends[1])
    }

    /// Waits for a child and returns its exit status (128 + signal when killed).
    public static func wait(_ pid: Int32) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }
}
