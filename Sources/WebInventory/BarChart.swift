/// A horizontal bar chart as SVG, drawn on the server: no script, no style sheet of its own, and
/// its labels escaped here (`HTMLText`: the chart is a value a template puts in unescaped).
enum BarChart {
    static func svg(_ bars: [(label: String, count: Int)]) -> String {
        let width = 600, barHeight = 28, gap = 10, labelWidth = 190
        let maximum = max(bars.map(\.count).max() ?? 0, 1)
        let height = bars.count * (barHeight + gap) + gap
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bars\" role=\"img\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">"
        for (index, bar) in bars.enumerated() {
            let y = gap + index * (barHeight + gap)
            let length = bar.count == 0 ? 0 : max(2, (width - labelWidth - 60) * bar.count / maximum)
            svg += "<text x=\"0\" y=\"\(y + barHeight * 2 / 3)\" class=\"label\">\(HTMLText.escaped(bar.label))</text>"
            svg += "<rect x=\"\(labelWidth)\" y=\"\(y)\" width=\"\(length)\" height=\"\(barHeight)\" class=\"bar bar\(index)\"></rect>"
            svg += "<text x=\"\(labelWidth + length + 6)\" y=\"\(y + barHeight * 2 / 3)\" class=\"value\">\(bar.count)</text>"
        }
        return svg + "</svg>"
    }
}
