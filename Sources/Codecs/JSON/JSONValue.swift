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

/// What a parse builds: a `JSONValue` tree, or a property list directly (the catalogue reads an
/// Info dictionary back for every bundle it returns).
private protocol JSONBuilding {
    associatedtype Built
    static var null: Built { get }
    static func bool(_ value: Bool) -> Built
    static func integer(_ value: Int64) -> Built
    static func unsignedInteger(_ value: UInt64) -> Built
    static func number(_ value: Double) -> Built
    static func string(_ value: String) -> Built
    static func array(_ values: [Built]) -> Built
    static func object(_ members: [(String, Built)]) -> Built
}

/// Its cases build it.
extension JSONValue: JSONBuilding {}

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

private struct JSONParser {
    static func parse<Builder: JSONBuilding>(_ text: String, building: Builder.Type) throws(JSONValue.ParseError) -> Builder.Built {
        var text = text
        let result: Result<Builder.Built, JSONValue.ParseError> = text.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes)
            do throws(JSONValue.ParseError) {
                let value = try parser.value(depth: 0, building: Builder.self)
                parser.skipSpace()
                guard parser.index == parser.bytes.count else { throw JSONValue.ParseError(offset: parser.index) }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The text's own UTF-8, valid while `parse` runs.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value<Builder: JSONBuilding>(depth: Int, building: Builder.Type) throws(JSONValue.ParseError) -> Builder.Built {
        skipSpace()
        guard index < bytes.count, depth < 512 else { throw JSONValue.ParseError(offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(String, Builder.Built)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return Builder.object(members) }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw JSONValue.ParseError(offset: index) }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw JSONValue.ParseError(offset: index) }
                index += 1
                members.append((key, try value(depth: depth + 1, building: Builder.self)))
                skipSpace()
                guard index < bytes.count else { throw JSONValue.ParseError(offset: index) }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return Builder.object(members) }
                throw JSONValue.ParseError(offset: index)
            }
        case UInt8(ascii: "["):
            index += 1
            var values: [Builder.Built] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return Builder.array(values) }
            while true {
                values.append(try value(depth: depth + 1, building: Builder.self))
                skipSpace()
                guard index < bytes.count else { throw JSONValue.ParseError(offset: index) }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return Builder.array(values) }
                throw JSONValue.ParseError(offset: index)
            }
        case UInt8(ascii: "\""):
            return Builder.string(try string())
        case UInt8(ascii: "t"): try literal("true"); return Builder.bool(true)
        case UInt8(ascii: "f"): try literal("false"); return Builder.bool(false)
        case UInt8(ascii: "n"): try literal("null"); return Builder.null
        default:
            let start = index
            var isInteger = true
            scan: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): index += 1
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): isInteger = false; index += 1
                default: break scan
                }
            }
            if isInteger, let integer = integer(from: start) {
                switch integer {
                case let .integer(value): return Builder.integer(value)
                case let .unsignedInteger(value): return Builder.unsignedInteger(value)
                default: break
                }
            }
            if let number = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) {
                return Builder.number(number)
            }
            throw JSONValue.ParseError(offset: start)
        }
    }

    /// `-?[0-9]+` from `start` to `index`, or nil (a `+`, no digits, beyond -2^63 ... 2^64 - 1).
    func integer(from start: Int) -> PlistValue? {
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < index else { return nil }
        var magnitude: UInt64 = 0
        while position < index {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (scaled, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = scaled.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            position += 1
        }
        return PlistValue.integer(magnitude: magnitude, negative: negative)
    }

    mutating func literal(_ word: StaticString) throws(JSONValue.ParseError) {
        let utf8 = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes[index...].starts(with: utf8) else { throw JSONValue.ParseError(offset: index) }
        index += utf8.count
    }

    mutating func string() throws(JSONValue.ParseError) -> String {
        index += 1
        // Most strings have no escapes: one look for the closing quote, one copy.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        }
        var out: [UInt8] = Array(bytes[index..<end])
        index = end
        var pendingHigh: UInt32?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            guard byte == UInt8(ascii: "\\") else { out.append(byte); continue }
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            var scalar: UInt32
            switch escape {
            case UInt8(ascii: "n"): scalar = 0x0A
            case UInt8(ascii: "t"): scalar = 0x09
            case UInt8(ascii: "r"): scalar = 0x0D
            case UInt8(ascii: "b"): scalar = 0x08
            case UInt8(ascii: "f"): scalar = 0x0C
            case UInt8(ascii: "u"):
                guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                    throw JSONValue.ParseError(offset: index)
                }
                index += 4
                scalar = value
            default: scalar = UInt32(escape)
            }
            if (0xD800...0xDBFF).contains(scalar) { pendingHigh = scalar; continue }
            if (0xDC00...0xDFFF).contains(scalar), let high = pendingHigh {
                scalar = 0x10000 + ((high - 0xD800) << 10) + (scalar - 0xDC00)
            }
            pendingHigh = nil
            out += Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8)
        }
        throw JSONValue.ParseError(offset: index)
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
