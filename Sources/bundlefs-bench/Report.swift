import Foundation

/// The benchmark report: one line per figure, with the baseline it is measured against.
struct Report {
    struct Line {
        var figure: String
        var value: String
        var baseline: String
        var ratio: Double?
        var goal: String
    }

    var title: String
    var notes: [String] = []
    var lines: [Line] = []

    mutating func add(_ figure: String, seconds: Double, against baseline: String, baselineSeconds: Double, goal: String) {
        lines.append(Line(
            figure: figure, value: String(format: "%.3f s", seconds),
            baseline: "\(baseline) \(String(format: "%.3f s", baselineSeconds))", ratio: seconds / baselineSeconds, goal: goal))
    }

    mutating func add(_ figure: String, value: String, goal: String) {
        lines.append(Line(figure: figure, value: value, baseline: "", ratio: nil, goal: goal))
    }

    var rendered: String {
        var rows = [["figure", "measured", "baseline (same run)", "ratio", "goal"]]
        for line in lines {
            rows.append([line.figure, line.value, line.baseline, line.ratio.map { String(format: "%.2fx", $0) } ?? "", line.goal])
        }
        var widths = Array(repeating: 0, count: 5)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        let table = rows.map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }.joined(separator: "\n")
        return ([title] + notes.map { "  " + $0 } + ["", table]).joined(separator: "\n")
    }
}
