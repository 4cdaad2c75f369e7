import Foundation

/// A program run under GNU time (Debian's `time`): what it printed, how long it took and its peak
/// resident memory, for tests that hold a limit in seconds or megabytes.
public struct MeasuredRun: Sendable {
    public var result: ProcessResult
    public var seconds: Double
    /// The child's peak resident set (VmHWM), in kilobytes.
    public var peakKilobytes: Int

    public var peakMegabytes: Double { Double(peakKilobytes) / 1024 }
}

extension Subprocess {
    /// Runs `executable` under `/usr/bin/time`, which reports the child's wall time and peak RSS.
    /// `timeout --foreground` kills the child past `timeout` seconds and reaps it (exit 137), so that
    /// time still reports it and nothing outlives the test.
    public static func measured(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120
    ) throws -> MeasuredRun {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("bundlefs-time-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let limited = ["/usr/bin/timeout", "--foreground", "-s", "KILL", "\(Int(timeout.rounded(.up)))", executable] + arguments
        let result = try run("/usr/bin/time", ["-f", "%e %M", "-o", report] + limited, environment: environment, timeout: timeout + 30)
        // time appends its line after any "Command exited with non-zero status" line.
        let line = (try? String(contentsOfFile: report, encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? ""
        let fields = line.split(separator: " ")
        return MeasuredRun(result: result, seconds: fields.first.flatMap { Double($0) } ?? .infinity,
                           peakKilobytes: fields.count > 1 ? Int(fields[1]) ?? .max : .max)
    }

    /// `bundlefs` as `bundlefs(_:catalogue:)` runs it, measured.
    public static func measuredBundlefs(_ arguments: [String], catalogue: String, timeout: Double = 120) throws -> MeasuredRun {
        let environment = ["BUNDLEFS_CATALOGUE": catalogue, "LANG": "C", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""]
        return try measured(bundlefs, arguments, environment: environment, timeout: timeout)
    }
}
