import Foundation
import GRDB

/// One row as the catalogue's decoders read it, by column position: from GRDB (`Row`) in the
/// daemon and the commands that read much, or straight from SQLite (`LookupConnection`) in a
/// one-shot lookup. One decoder for both, so the two cannot read a row differently.
protocol ColumnValues {
    func text(_ index: Int) -> String?
    func integer(_ index: Int) -> Int64?
    func bytes(_ index: Int) -> [UInt8]?
}

extension ColumnValues {
    func flag(_ index: Int) -> Bool { (integer(index) ?? 0) != 0 }

    /// A column selected `CAST(… AS BLOB)`, as the text it holds, NULs included (SQLite's text
    /// read as a C string would end at the first).
    func exactText(_ index: Int) -> String { bytes(index).map { String(decoding: $0, as: UTF8.self) } ?? "" }
}

extension Row: ColumnValues {
    func text(_ index: Int) -> String? { self[index] }
    func integer(_ index: Int) -> Int64? { self[index] }
    func bytes(_ index: Int) -> [UInt8]? { (self[index] as Data?).map { [UInt8]($0) } }
}

/// A value bound to a statement's placeholder.
enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
}

/// Where the decoders' statements run: a GRDB `Database` inside a read, or a lookup's own connection.
protocol RowSource {
    /// Runs a query, handing each row to `body` (a row is valid only during its call).
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (any ColumnValues) throws -> Void) throws
}

extension Database: RowSource {
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (any ColumnValues) throws -> Void) throws {
        // Cached: preparing a statement costs GRDB far more than running an indexed lookup.
        let values = arguments.map { value -> DatabaseValue in
            switch value {
            case let .text(text): text.databaseValue
            case let .integer(integer): integer.databaseValue
            }
        }
        try Row.fetchCursor(cachedStatement(sql: sql), arguments: StatementArguments(values)).forEach { try body($0) }
    }
}
