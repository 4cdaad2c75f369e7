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
        var writer = JSONWriter(pretty: pretty)
        write(to: &writer)
        return writer.text
    }

    func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case let .bool(value): writer.bool(value)
        case let .integer(value): writer.integer(value)
        case let .unsignedInteger(value): writer.unsignedInteger(value)
        case let .number(value): writer.number(value)
        case let .string(value): writer.string(value)
        case let .array(values): writer.array(values) { $1.write(to: &$0) }
        case let .object(members):
            writer.object(members) { writer, member in
                writer.key(member.0)
                member.1.write(to: &writer)
            }
        }
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
