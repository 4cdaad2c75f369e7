import Codecs

/// Text made safe to print on a terminal: control characters (which could move the cursor or
/// change colours, coming from a hostile file name) are shown as escapes.
package enum TerminalText {
    package static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\x" + Hex.string([UInt8(scalar.value)])
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
    }
}

/// A plain text table with aligned columns.
package struct TextTable {
    package var header: [String]
    package var rows: [[String]] = []

    package init(header: [String]) { self.header = header }

    package func rendered() -> String {
        let all = [header] + rows
        var widths = Array(repeating: 0, count: header.count)
        for row in all {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
