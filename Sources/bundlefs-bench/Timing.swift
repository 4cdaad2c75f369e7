import Foundation
import SystemCalls

/// Wall-clock timing of commands and closures, reported as the median of several runs.
enum Timing {
    static func now() -> Double { Clocks.monotonicSeconds() }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func median(_ runs: Int, _ body: () throws -> Double) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<runs { samples.append(try body()) }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// The sample at `fraction` (0.5 the median, 0.99 the 99th percentile), nearest rank.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }

    /// User and system time of every child waited for so far: the difference across a `run` is
    /// that command's CPU time, which a busy neighbour on the machine moves less than its wall time.
    static func childCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// `run`, also giving the command's CPU time.
    static func runMeasuringCPU(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> (wall: Double, cpu: Double) {
        let before = childCPUSeconds()
        let wall = run(executable, arguments, environment: environment)
        return (wall, childCPUSeconds() - before)
    }

    /// Runs a command to completion with its output discarded; fails loudly if it fails.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> Double {
        seconds {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            var merged = ProcessInfo.processInfo.environment
            for (key, value) in environment { merged[key] = value }
            process.environment = merged
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try! process.run()
            let errorOutput = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                FileHandle.standardError.write(errorOutput)
                fatalError("\(executable) \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
            }
        }
    }
}

/// The baseline walk, in process: every directory listed with getdents64, one thread, no stat,
/// symlinks not followed. What any indexer must do at least.
enum BareWalk {
    static func walk(_ root: String) -> (directories: Int, entries: Int) {
        var directories = 0, entries = 0
        var pending = [FilePath(root)]
        while let path = pending.popLast() {
            guard let directory = try? Descriptor.open(path, flags: Descriptor.directoryNoFollow),
                  let listing = try? directory.listDirectory() else { continue }
            directories += 1
            entries += listing.count
            for entry in listing where entry.type == .directory { pending.append(path.appending(entry.name)) }
        }
        return (directories, entries)
    }
}

/// A catalogue and the files beside it, removed before a run that must start from nothing.
enum CatalogueFiles {
    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", ".lock", ".status"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
