/// Writes JSON into UTF-8 bytes: the one writer behind `JSONValue.serialized`, the catalogue's Info
/// JSON (written straight from a `PlistValue`, for every bundle an index writes) and its lists.
/// Compact, or indented with two spaces.
public struct JSONWriter {
    public private(set) var output: ByteWriter
    private let pretty: Bool
    /// How many containers are open: the indent of a pretty item.
    private var depth = 0

    public init(pretty: Bool = false, capacity: Int = 256) {
        output = ByteWriter(capacity: capacity)
        self.pretty = pretty
    }

    public var text: String { output.text }

    public mutating func null() { output.append("null") }
    public mutating func bool(_ value: Bool) { output.append(value ? "true" : "false") }
    public mutating func integer(_ value: Int64) { output.append(value) }
    public mutating func unsignedInteger(_ value: UInt64) { output.append(value) }

    /// JSON has no infinity or NaN: they are written as null.
    public mutating func number(_ value: Double) { output.append(raw: value.isFinite ? "\(value)" : "null") }

    /// A string literal: `"` `\` and control characters escaped, everything else as it is.
    public mutating func string(_ value: String) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F else { continue }
                output.append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): output.append("\\\"")
                case UInt8(ascii: "\\"): output.append("\\\\")
                case UInt8(ascii: "\n"): output.append("\\n")
                case UInt8(ascii: "\r"): output.append("\\r")
                case UInt8(ascii: "\t"): output.append("\\t")
                default:
                    output.append("\\u00")
                    output.append(Hex.digit(byte >> 4, uppercase: false))
                    output.append(Hex.digit(byte & 15, uppercase: false))
                }
                start = index + 1
            }
            output.append(UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// An array of `elements`, each written by `element`. Generic, so a caller in another module
    /// runs it unspecialized; the catalogue's lists of strings take `strings`.
    public mutating func array<Elements: Sequence>(_ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void) {
        container(UInt8(ascii: "["), UInt8(ascii: "]"), elements, element)
    }

    /// An array of strings.
    public mutating func strings(_ values: [String]) { array(values) { $0.string($1) } }

    /// An object with a member for each of `members`: `member` writes its `key` and then its value.
    public mutating func object<Members: Sequence>(_ members: Members, _ member: (inout JSONWriter, Members.Element) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), members, member)
    }

    /// An object member's key, before its value.
    public mutating func key(_ key: String) {
        string(key)
        if pretty { output.append(": ") } else { output.append(UInt8(ascii: ":")) }
    }

    private mutating func container<Items: Sequence>(
        _ open: UInt8, _ close: UInt8, _ items: Items, _ item: (inout JSONWriter, Items.Element) -> Void
    ) {
        output.append(open)
        depth += 1
        var isEmpty = true
        for element in items {
            if !isEmpty { output.append(UInt8(ascii: ",")) }
            isEmpty = false
            newline()
            item(&self, element)
        }
        depth -= 1
        // An empty container stays on its line: `[]`, `{}`.
        if !isEmpty { newline() }
        output.append(close)
    }

    private mutating func newline() {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { output.append("  ") }
    }
}
