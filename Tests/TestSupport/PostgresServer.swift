import Foundation
import Fixtures

/// A throw-away PostgreSQL cluster for one test: `initdb` in a temporary directory, served by
/// `pg_ctl` as the unprivileged user `nobody` on a Unix socket in that directory (no TCP port), and
/// stopped and removed when released, also when the test failed. Debian's `postgresql` package
/// provides the programs (the Makefile installs it).
public final class PostgresServer: @unchecked Sendable {
    public let directory: String
    var data: String { directory + "/data" }
    var log: String { directory + "/server.log" }
    private let programs: String
    private(set) public var isRunning = false
    /// The port of its socket, and of 127.0.0.1 when it listens there too (`tcp`).
    public let port: Int
    private let tcp: Bool

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The directory holding initdb, pg_ctl and postgres, or nil when PostgreSQL is not installed.
    public static var programsDirectory: String? {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(base)/\($0)/bin" }.flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") ? $0 : nil }
    }

    /// With `tcp`, it also listens on 127.0.0.1, on a port free when it starts.
    public init(tcp: Bool = false) throws {
        self.tcp = tcp
        port = tcp ? freeLoopbackPort() : 5432
        guard let programs = Self.programsDirectory else {
            throw Failure(description: "PostgreSQL is not installed (apt-get install postgresql; `make test` does)")
        }
        self.programs = programs
        // Where temporary directories go, when short enough for the socket's path (108 bytes).
        let base = TemporaryDirectory.defaultBase.utf8.count <= 40 ? TemporaryDirectory.defaultBase : "/tmp"
        var template = Array("\(base)/bundlefs-postgres-XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: created)
        // PostgreSQL refuses to run as root: the cluster belongs to nobody.
        chown(directory, 65534, 65534)
        try makeCluster(base: base)
        // The server must not inherit the test process's descriptors: Foundation's Process learns
        // that pg_ctl ended when its end of a socket closes, which a server holding a copy never lets
        // happen (and other tests' pipes would never reach end of file). pg_ctl starts this instead.
        // The loop leaves stderr on /dev/null (bash kept the real one in a descriptor the loop
        // closes), so the server's stderr is pointed again at its stdout: pg_ctl gave both the log.
        let launcher = directory + "/postgres"
        try "#!/bin/bash\nfor fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ \"$fd\" -gt 2 ]; then eval \"exec $fd>&-\"; fi; done 2>/dev/null\nexec \(programs)/postgres \"$@\" 2>&1\n"
            .write(toFile: launcher, atomically: false, encoding: .utf8)
        chmod(launcher, 0o755)
        try start()
    }

    /// A copy of the cluster initdb made for the first server of this PostgreSQL version, kept in
    /// `base` for the next (0.04 s of CPU to copy against initdb's 0.7 s): a copy of a cluster
    /// never started is what initdb makes. Renamed into place whole: of two made at once, one stays.
    private func makeCluster(base: String) throws {
        let template = "\(base)/bundlefs-postgres-initdb-" + programs.split(separator: "/").dropLast().last.map(String.init)!
        if (try? Subprocess.run("/bin/cp", ["-a", template, data]))?.status == 0 { return }
        removeTree(data)
        try asNobody("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"], timeout: 120)
        let aside = directory + "/initdb-copy"
        if (try? Subprocess.run("/bin/cp", ["-a", data, aside]))?.status != 0 || rename(aside, template) != 0 { removeTree(aside) }
    }

    /// The server's socket, there while it runs.
    public var socketPath: String { directory + "/.s.PGSQL.\(port)" }

    /// A libpq URI for the `postgres` database over the socket.
    public var url: String { "postgresql:///postgres?host=\(directory)&user=postgres" + (port == 5432 ? "" : "&port=\(port)") }

    /// The same over TCP (a server made with `tcp`).
    public var tcpURL: String { "postgresql://postgres@127.0.0.1:\(port)/postgres" }

    public func start() throws {
        let listening = tcp ? "-c listen_addresses=127.0.0.1 -c port=\(port)" : "-c listen_addresses=''"
        let options = "-k \(directory) \(listening) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        try asNobody("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-p", directory + "/postgres", "-o", options, "start"], timeout: 90)
        isRunning = true
    }

    /// Stops the server; `immediate` is a crash (what a killed machine does), else a fast shutdown.
    public func stop(immediate: Bool = false) throws {
        guard isRunning else { return }
        try asNobody("pg_ctl", ["-D", data, "-w", "-t", "60", "-m", immediate ? "immediate" : "fast", "stop"], timeout: 90)
        isRunning = false
    }

    /// Runs SQL with psql; returns its unaligned, tuples-only output.
    @discardableResult
    public func psql(_ sql: String, timeout: Double = 120) throws -> String {
        let result = try Subprocess.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql], timeout: timeout)
        guard result.status == 0 else { throw Failure(description: "psql \(sql):\n\(result)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs SQL with psql, its output (a `COPY … TO STDOUT`, say) into a file.
    public func psql(_ sql: String, to file: String) throws {
        let result = try Subprocess.run("/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-o", file, "-c", sql], timeout: 600)
        guard result.status == 0 else { throw Failure(description: "psql \(sql):\n\(result)") }
    }

    /// `pg_dump` of the database, as SQL that drops what it restores first (`--clean`): a backup.
    public func dump(to file: String) throws {
        let result = try Subprocess.run("\(programs)/pg_dump", ["--clean", "--if-exists", "--no-owner", "-f", file, "-d", url], timeout: 120)
        guard result.status == 0 else { throw Failure(description: "pg_dump:\n\(result)") }
    }

    /// Restores a `dump` over the database as it is now, in one transaction.
    public func restore(from file: String) throws {
        let result = try Subprocess.run("/usr/bin/psql", ["-X", "-q", "-1", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", file], timeout: 120)
        guard result.status == 0 else { throw Failure(description: "restoring \(file):\n\(result)") }
    }

    /// Holds `LOCK TABLE … IN EXCLUSIVE MODE` in an open transaction until released: reads go
    /// on, a writer's transaction waits inside, as long as the test wants.
    public func lockTable(_ table: String) throws -> TableLock {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = ["-X", "-q", "-d", url + "&application_name=bundlefs-test-lock"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN; LOCK TABLE \(table) IN EXCLUSIVE MODE; SELECT pg_sleep(600);\n".utf8))
        return TableLock(server: self, process: process, input: input)
    }

    /// A lock a test holds through psql.
    public final class TableLock: @unchecked Sendable {
        let server: PostgresServer
        let process: Process
        let input: Pipe
        private var released = false

        init(server: PostgresServer, process: Process, input: Pipe) {
            self.server = server
            self.process = process
            self.input = input
        }

        /// Ends the lock holder's session (a backend in pg_sleep notices no client leaving), then psql.
        public func release() throws {
            guard !released else { return }
            released = true
            try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bundlefs-test-lock'")
            try? input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        deinit { try? release() }
    }

    public var serverLog: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Runs a PostgreSQL program as nobody, its output to the server log (a file, never a pipe:
    /// the server pg_ctl starts inherits it and would keep a pipe open forever).
    private func asNobody(_ program: String, _ arguments: [String], timeout: Double) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "\(programs)/\(program)"] + arguments
        process.environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": directory]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = directory + "/\(program).out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        chown(output, 65534, 65534)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "\(program) took more than \(timeout) s")
        }
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)):\n\(text)\n\(serverLog)")
        }
    }

    deinit {
        try? stop(immediate: true)
        removeTree(directory)
    }
}
