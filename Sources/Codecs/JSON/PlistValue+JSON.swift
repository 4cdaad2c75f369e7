/// `string`, `integer`, `bool` and `array` are its cases; a JSON null reads as an empty string.
extension PlistValue: JSONBuilding {
    static var null: PlistValue { .string("") }
    static func number(_ value: Double) -> PlistValue { .real(value) }
    static func object(_ members: [(String, PlistValue)]) -> PlistValue {
        var entries: [String: PlistValue] = [:]
        entries.reserveCapacity(members.count)
        for (key, value) in members { entries[key] = value }
        return .dictionary(entries)
    }

    /// `PlistValue(json: JSONValue.parse(text))` in one pass.
    public init(jsonText: String) throws(JSONValue.ParseError) {
        self = try JSONParser.parse(jsonText, building: PlistValue.self)
    }
}

extension PlistValue {
    /// The JSON form used in the catalogue's `info` column: data as base64, dates as ISO 8601
    /// strings, dictionary keys sorted.
    public var jsonValue: JSONValue {
        switch self {
        case let .string(value): .string(value)
        case let .integer(value): .integer(value)
        case let .unsignedInteger(value): .unsignedInteger(value)
        case let .real(value): .number(value)
        case let .bool(value): .bool(value)
        case let .date(value): .string(PlistDate.formatISO8601(value))
        case let .data(value): .string(Base64.encode(value))
        case let .uid(value): .object([("CF$UID", .integer(Int64(bitPattern: value)))])
        case let .array(values): .array(values.map(\.jsonValue))
        case let .dictionary(entries): .object(entries.keys.sorted().map { ($0, entries[$0]!.jsonValue) })
        }
    }

    /// `jsonValue.serialized()` without building the intermediate value: used for every catalogued
    /// Info dictionary.
    public var jsonText: String {
        var writer = ByteWriter(capacity: 512)
        writeJSON(into: &writer)
        return writer.text
    }

    private func writeJSON(into out: inout ByteWriter) {
        switch self {
        case let .string(value): out.appendJSONString(value)
        case let .integer(value): out.append(value)
        case let .unsignedInteger(value): out.append(value)
        case let .real(value): out.append(raw: value.isFinite ? "\(value)" : "null")
        case let .bool(value): out.append(value ? "true" : "false")
        case let .date(value): out.appendJSONString(PlistDate.formatISO8601(value))
        case let .data(value): out.appendJSONString(Base64.encode(value))
        case let .uid(value):
            out.append("{\"CF$UID\":")
            out.append(Int64(bitPattern: value))
            out.append("}")
        case let .array(values):
            out.append("[")
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(",") }
                value.writeJSON(into: &out)
            }
            out.append("]")
        case let .dictionary(entries):
            out.append("{")
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { out.append(",") }
                out.appendJSONString(key)
                out.append(":")
                entries[key]!.writeJSON(into: &out)
            }
            out.append("}")
        }
    }

    /// Whether `PlistValue(json:)` of this value's JSON gives this value back: it holds no date,
    /// data, UID or non-finite real, which JSON can only carry as something else.
    public var isExactInJSON: Bool {
        switch self {
        case .string, .integer, .unsignedInteger, .bool: true
        case let .real(value): value.isFinite
        case .date, .data, .uid: false
        case let .array(values): values.allSatisfy(\.isExactInJSON)
        case let .dictionary(entries): entries.values.allSatisfy(\.isExactInJSON)
        }
    }

    /// The inverse of `jsonValue` as far as JSON allows (data and dates come back as strings).
    public init(json: JSONValue) {
        switch json {
        case .null: self = .string("")
        case let .bool(value): self = .bool(value)
        case let .integer(value): self = .integer(value)
        case let .unsignedInteger(value): self = .unsignedInteger(value)
        case let .number(value): self = .real(value)
        case let .string(value): self = .string(value)
        case let .array(values): self = .array(values.map(PlistValue.init(json:)))
        case let .object(members):
            var entries: [String: PlistValue] = [:]
            entries.reserveCapacity(members.count)
            for (key, value) in members { entries[key] = PlistValue(json: value) }
            self = .dictionary(entries)
        }
    }
}
