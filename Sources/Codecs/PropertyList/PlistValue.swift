/// A property-list value, as any of the three formats can express it.
public indirect enum PlistValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    /// An integer above `Int64.max` (up to 2^64 - 1, which binary and XML plists can hold); values
    /// that fit in `Int64` are always `.integer`, so each number has one form.
    case unsignedInteger(UInt64)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01T00:00:00Z, Apple's reference date.
    case date(Double)
    case data([UInt8])
    case array([PlistValue])
    case dictionary([String: PlistValue])
    /// A keyed-archiver object reference (binary plists only).
    case uid(UInt64)

    public var string: String? { if case let .string(value) = self { value } else { nil } }
    public var array: [PlistValue]? { if case let .array(value) = self { value } else { nil } }
    public var dictionary: [String: PlistValue]? { if case let .dictionary(value) = self { value } else { nil } }

    /// Truth the way Launch Services reads flags like LSTypeIsPackage: a boolean, a non-zero
    /// number, or the strings `YES`/`true`/`1` (any case).
    public var isTruthy: Bool {
        switch self {
        case let .bool(value): value
        case let .integer(value): value != 0
        case .unsignedInteger: true
        case let .real(value): value != 0
        case let .string(value): ["yes", "true", "1"].contains(value.lowercased())
        default: false
        }
    }

    /// Strings, or an array of strings (plists use both for lists of one); other members are dropped.
    public var stringList: [String] {
        switch self {
        case let .string(value): [value]
        case let .array(values): values.compactMap(\.string)
        default: []
        }
    }

    /// The name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer, .unsignedInteger: "integer"
        case .real: "real"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        case .uid: "UID"
        }
    }
}

/// Which of the three encodings a property list was read from.
public enum PlistFormat: String, Sendable, Codable {
    case binary
    case xml
    case openStep = "openstep"
}

/// A property list that could not be read at all.
public struct PlistError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// 1-based line of a text format, when known.
    public var line: Int?
    /// A problem that leaves the contents whole (a legacy encoding guessed), as opposed to one the
    /// reader had to repair (a missing `;`).
    public var isWarning: Bool

    public init(_ message: String, line: Int? = nil, isWarning: Bool = false) {
        self.message = message
        self.line = line
        self.isWarning = isWarning
    }

    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}

/// How deep arrays and dictionaries may nest. Real plists stay under 20; the limit keeps hostile
/// input from exhausting the stack of a scanner thread.
let maximumPlistDepth = 200

extension PlistValue {
    /// An integer of any value a property list can hold: `.integer` when it fits in `Int64`.
    public static func integer(magnitude: UInt64, negative: Bool) -> PlistValue? {
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? .integer(Int64(truncatingIfNeeded: 0 &- magnitude)) : nil }
        return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsignedInteger(magnitude)
    }
}
