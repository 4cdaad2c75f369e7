/// A JSON value with ordered object keys, so output is deterministic and follows the contract's
/// field order.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// An integer above `Int64.max`.
    case unsignedInteger(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.unsignedInteger(a), .unsignedInteger(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case let .array(value) = self { value } else { nil } }

    public static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    // MARK: Writing

    /// Compact JSON, or indented with two spaces.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, indent: pretty ? 0 : nil)
        return out
    }

    private func write(into out: inout String, indent: Int?) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .integer(value): out += String(value)
        case let .unsignedInteger(value): out += String(value)
        case let .number(value): out += value.isFinite ? "\(value)" : "null"
        case let .string(value): Self.writeString(value, into: &out)
        case let .array(values):
            if values.isEmpty { out += "[]"; return }
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: "  ", count: indent + 1) }
                value.write(into: &out, indent: indent.map { $0 + 1 })
            }
            if let indent { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case let .object(members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.writeString(key, into: &out)
                out += indent == nil ? ":" : ": "
                value.write(into: &out, indent: indent.map { $0 + 1 })
            }
            if let indent { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    static func writeString(_ value: String, into out: inout String) {
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
            out += "\""
            out += value
            out += "\""
            return
        }
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    // MARK: Reading

    public struct ParseError: Error, CustomStringConvertible {
        public var offset: Int
        public var description: String { "invalid JSON at byte \(offset)" }
    }

    public static func parse(_ text: String) throws(ParseError) -> JSONValue {
        try JSONParser.parse(text, building: JSONValue.self)
    }
}
