public import Codecs

/// The contents of a `.strings` file: key → localized text.
public struct StringsTable: Sendable, Equatable {
    public var entries: [String: String]
    public var format: PlistFormat
    public var encoding: TextEncoding?
    /// Problems that were recovered from; worth reporting, but the entries are usable.
    public var problems: [PlistError]

    public init(entries: [String: String], format: PlistFormat = .openStep, encoding: TextEncoding? = .utf8, problems: [PlistError] = []) {
        self.entries = entries
        self.format = format
        self.encoding = encoding
        self.problems = problems
    }

    public subscript(key: String) -> String? { entries[key] }
}

/// Reads `.strings` files in every form real bundles ship: text in UTF-16 (either byte order, with
/// or without BOM), UTF-8 (with or without BOM), a legacy 8-bit encoding, or a binary or XML plist.
public enum StringsFileReader {
    public static func read(_ bytes: [UInt8]) throws(PlistError) -> StringsTable {
        let document = try PropertyListReader.read(bytes)
        guard case let .dictionary(dictionary) = document.value else {
            throw PlistError("the root is a \(document.value.typeName), not a table of strings")
        }
        var entries: [String: String] = [:]
        entries.reserveCapacity(dictionary.count)
        var problems = document.problems
        for (key, value) in dictionary {
            if case let .string(text) = value {
                entries[key] = text
            } else {
                problems.append(PlistError("the value of \"\(key.prefix(40))\" is a \(value.typeName), not a string; ignored"))
            }
        }
        return StringsTable(entries: entries, format: document.format, encoding: document.encoding, problems: problems)
    }
}
