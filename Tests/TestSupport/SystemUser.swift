import Foundation
import SystemCalls

/// A real, unprivileged user made for one test with `useradd` and removed (with whatever it still
/// runs) when released, even after a failure. Commands run as it through `runuser`.
public final class SystemUser: @unchecked Sendable {
    public let name: String
    public let userID: UInt32
    public let groupID: UInt32

    public init() throws {
        name = "bfs" + String(UInt32.random(in: 0..<UInt32.max), radix: 16)
        let added = try Subprocess.run("/usr/sbin/useradd", ["--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name])
        guard added.status == 0 else { throw WatcherFailure("useradd \(name): \(added)") }
        let user = try Subprocess.run("/usr/bin/id", ["-u", name]), group = try Subprocess.run("/usr/bin/id", ["-g", name])
        guard let userID = UInt32(user.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)),
              let groupID = UInt32(group.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw WatcherFailure("id \(name): \(user) \(group)") }
        self.userID = userID
        self.groupID = groupID
    }

    /// Runs a program as this user.
    @discardableResult
    public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> ProcessResult {
        try Subprocess.run("/usr/sbin/runuser", ["-u", name, "--", executable] + arguments, environment: environment, timeout: timeout)
    }

    /// Whether this user can read the whole file at `path` (through `cat`).
    public func canRead(_ path: String) throws -> Bool { try run("/bin/cat", [path]).status == 0 }

    /// Whether this user can archive the whole tree at `path` (through `tar`, into a pipe: GNU tar
    /// reads no file's contents when its archive is /dev/null).
    public func canArchive(_ path: String) throws -> Bool {
        try run("/bin/bash", ["-c", "set -o pipefail; /bin/tar -cf - \"$1\" 2>/dev/null | /bin/cat > /dev/null", "archive", path]).status == 0
    }

    /// Whether this user can list the directory at `path` (through `ls`).
    public func canList(_ path: String) throws -> Bool { try run("/bin/ls", ["-a", path]).status == 0 }

    deinit {
        _ = try? Subprocess.run("/usr/bin/pkill", ["-KILL", "-u", name])
        _ = try? Subprocess.run("/usr/sbin/userdel", [name])
    }
}
