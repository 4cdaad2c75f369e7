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
        var writer = JSONWriter(capacity: 512)
        writeJSON(to: &writer)
        return writer.text
    }

    func writeJSON(to writer: inout JSONWriter) {
        switch self {
        case let .string(value): writer.string(value)
        case let .integer(value): writer.integer(value)
        case let .unsignedInteger(value): writer.unsignedInteger(value)
        case let .real(value): writer.number(value)
        case let .bool(value): writer.bool(value)
        case let .date(value): writer.string(PlistDate.formatISO8601(value))
        case let .data(value): writer.string(Base64.encode(value))
        case let .uid(value):
            writer.object(CollectionOfOne(value)) { writer, value in
                writer.key("CF$UID")
                writer.integer(Int64(bitPattern: value))
            }
        case let .array(values): writer.array(values) { $1.writeJSON(to: &$0) }
        case let .dictionary(entries):
            writer.object(entries.keys.sorted()) { writer, key in
                writer.key(key)
                entries[key]!.writeJSON(to: &writer)
            }
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
