import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `mount` without `-f`: the command starts itself again as the daemon and returns once the
/// daemon says it is ready (the view mounted), so that a script may use the view on the next
/// line; the daemon's errors before then reach the terminal through the inherited stderr.
public enum Detaching {
    /// Set in the daemon's environment by `startInBackground`.
    static let variable = "BUNDLEFS_DAEMONIZED"

    /// In the command: runs this program again with the same arguments and `extraArguments` (the
    /// flag that keeps it in the foreground), and waits until it says it is ready: exits 0 then,
    /// or with the daemon's status when it ends first.
    public static func startInBackground(extraArguments: [String]) throws -> Never {
        let (readEnd, writeEnd) = try Spawn.pipe()
        let arguments = (1..<Int(CommandLine.argc)).map { FileNameCoding.string(cString: CommandLine.unsafeArgv[$0]!) } + extraArguments
        let pid = try Spawn.this(arguments: arguments, environment: [variable: "1"], standardOutput: writeEnd)
        close(writeEnd)
        var reply: [UInt8] = []
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) == 1 && byte != UInt8(ascii: "\n") { reply.append(byte) }
        exit(String(decoding: reply, as: UTF8.self) == "ready" ? 0 : Spawn.wait(pid))
    }

    /// In the daemon `startInBackground` started: leaves the command's session (a hang-up of its
    /// terminal does not reach the daemon) and gives what to call once ready, which tells the
    /// command and lets go of its terminal. nil in a process started otherwise.
    public static func daemonReady(environment: [String: String]) -> (@Sendable () -> Void)? {
        guard environment[variable] == "1" else { return nil }
        _ = setsid()
        return { Detaching.reportReadyAndDetach() }
    }

    static func reportReadyAndDetach() {
        let message = Array("ready\n".utf8)
        _ = message.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        let null = open("/dev/null", O_RDWR)
        if null >= 0 {
            for fd in Int32(0)...2 { dup2(null, fd) }
            if null > 2 { close(null) }
        }
    }
}
