/// One row as the catalogue's decoders read it, by column position: from GRDB (`Row`) in the
/// daemon and the commands that read much, or straight from SQLite (`LookupConnection`) in a
/// one-shot lookup. One decoder for both, so the two cannot read a row differently.
package protocol ColumnValues {
    func text(_ index: Int) -> String?
    func integer(_ index: Int) -> Int64?
    func bytes(_ index: Int) -> [UInt8]?
}

extension ColumnValues {
    package func flag(_ index: Int) -> Bool { (integer(index) ?? 0) != 0 }

    /// A column selected `CAST(… AS BLOB)`, as the text it holds, NULs included (SQLite's text
    /// read as a C string would end at the first).
    package func exactText(_ index: Int) -> String { bytes(index).map { String(decoding: $0, as: UTF8.self) } ?? "" }
}

/// A value bound to a statement's placeholder.
package enum SQLValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
}

/// Where the decoders' statements run: a GRDB `Database` inside a read, or a lookup's own connection.
package protocol RowSource {
    /// Runs a query, handing each row to `body` (a row is valid only during its call).
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (any ColumnValues) throws -> Void) throws
}

/// Where a row's columns are written: a prepared insert or update (`RawStatement` in the
/// catalogue's writer), by placeholder number.
package protocol ColumnBinder {
    func bind(_ index: Int32, _ value: String?)
    func bind(_ index: Int32, bytes: [UInt8])
    func bind(_ index: Int32, _ value: Int64?)
    func bind(_ index: Int32, _ value: Bool)
    func bind(_ index: Int32, _ value: Double)
}
