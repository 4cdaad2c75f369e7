/// What a parse builds: a `JSONValue` tree, or a property list directly (the catalogue reads an
/// Info dictionary back for every bundle it returns).
protocol JSONBuilding {
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

/// Its cases build it. (`Built` is named: inferring it from the cases crashes Swift 6.3's
/// type checker when the conformance is in another file than the enum.)
extension JSONValue: JSONBuilding {
    typealias Built = JSONValue
}

struct JSONParser {
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
