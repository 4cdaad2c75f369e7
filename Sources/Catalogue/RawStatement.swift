import CatalogueReading
import GRDB
import GRDBSQLite

/// A prepared statement bound and stepped through SQLite's C API. The index writes tens of
/// thousands of rows a second; GRDB's argument arrays box every value, which cost more than SQLite
/// itself. GRDB prepares the statement and owns it; this only binds and steps.
struct RawStatement: ColumnBinder {
    let statement: Statement
    let connection: OpaquePointer
    var handle: OpaquePointer { statement.sqliteStatement }

    init(_ db: Database, _ sql: String) throws {
        try self.init(db.makeStatement(sql: sql), db)
    }

    /// A statement GRDB prepared (a cached one, say).
    init(_ statement: Statement, _ db: Database) {
        self.statement = statement
        connection = db.sqliteConnection!
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: String?) {
        guard var value else { sqlite3_bind_null(handle, index); return }
        value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    _ = sqlite3_bind_text(handle, index, base, Int32(chars.count), Self.transient)
                } else {
                    _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
            }
        }
    }

    func bind(_ index: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
        }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Bool) { sqlite3_bind_int64(handle, index, value ? 1 : 0) }

    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    /// Runs a statement that returns no rows (or ignores them).
    func execute() throws {
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code) }
    }

    /// Runs a query and gives each row's first column as text.
    func forEachText(_ body: (String) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(code) }
            if let text = sqlite3_column_text(handle, 0) { try body(String(cString: text)) }
        }
    }

    /// Runs a statement and returns the first column of its first row as an integer.
    func executeReturningInteger() throws -> Int64? {
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return sqlite3_column_int64(handle, 0) }
        guard code == SQLITE_DONE else { throw error(code) }
        return nil
    }

    func error(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: statement.sql)
    }
}
