import Foundation
import SystemCalls

/// The view's figures taken steadily: native and view runs alternate, each side's median is
/// reported with its spread, and the daemon's request counts give a figure that does not drift
/// with the machine's load.
struct PairedSamples {
    var native: [Double] = []
    var view: [Double] = []
    /// The daemon's requests over all view runs, by kind.
    var requests: [String: UInt64] = [:]

    var nativeMedian: Double { Self.median(native) }
    var viewMedian: Double { Self.median(view) }

    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// `0.155 s (0.150–0.170)`: the median and the range.
    static func describe(_ samples: [Double]) -> String {
        String(format: "%.3f s (%.3f–%.3f)", median(samples), samples.min() ?? 0, samples.max() ?? 0)
    }

    /// Requests per run, the kinds that occurred, largest first.
    func requestsPerRun(runs: Int) -> String {
        let kinds = requests.filter { $0.value > 0 }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        guard !kinds.isEmpty else { return "no requests" }
        return kinds.map { "\($0.key) \(Double($0.value) / Double(runs))" }.joined(separator: ", ")
    }
}

enum RequestCounter {
    /// The daemon's counts, from `MNT/.bundlefs`'s `user.bundlefs.requests` attribute.
    static func read(_ mountPoint: String) -> [String: UInt64] {
        guard let bytes = (try? ExtendedAttributes.value("user.bundlefs.requests", atPath: FilePath(mountPoint + "/.bundlefs"))) ?? nil else { return [:] }
        let text = String(decoding: bytes, as: UTF8.self)
        var counts: [String: UInt64] = [:]
        for pair in text.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = UInt64(parts[1]) { counts[String(parts[0])] = value }
        }
        return counts
    }

    /// What happened between two readings, less the reading itself (one GETXATTR).
    static func difference(_ after: [String: UInt64], _ before: [String: UInt64]) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for (kind, value) in after { result[kind] = value &- (before[kind] ?? 0) }
        if let getxattr = result["getxattr"], getxattr > 0 { result["getxattr"] = getxattr - 1 }
        return result
    }
}
