import GRDBSQLite

/// A read-only connection through SQLite's C API alone: what a one-shot lookup opens
/// (`bundlefs query ID`, `symbols UUID`: a script's loop, lldb once per UUID of a crash). GRDB's
/// connection set-up, its statement authorizer and its generic fetching were a third of such a
/// command's time; a lookup prepares three or four statements once and needs none of it.
package final class LookupConnection: RowSource {
    private let handle: OpaquePointer

    /// What SQLite said: its result code and message.
    struct Failure: Error {
        let code: Int32
        let message: String
        var primaryCode: Int32 { code & 0xFF }
    }

    /// `uri`: `path` is a `file:` URI (`Catalogue.immutableURI`).
    init(path: String, uri: Bool) throws {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0), nil)
        guard code == SQLITE_OK, let opened else {
            let failure = Failure(code: code, message: opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")
            sqlite3_close_v2(opened)
            throw failure
        }
        handle = opened
        // As the catalogue's own readers: wait for a writer's lock, map the file rather than copy pages.
        sqlite3_busy_timeout(handle, 5_000)
        try execute("PRAGMA mmap_size = \(CatalogueFile.readerMapSize)")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// Runs `body` in one read transaction: everything it reads is one snapshot.
    func read<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN DEFERRED")
        defer { _ = sqlite3_exec(handle, "COMMIT", nil, nil, nil) }
        return try body()
    }

    package func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (any ColumnValues) throws -> Void) throws {
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw failure(code) }
        defer { sqlite3_finalize(statement) }
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            switch argument {
            case let .integer(value): sqlite3_bind_int64(statement, position, value)
            case let .text(value): _ = sqlite3_bind_text(statement, position, value, -1, Self.transient)
            }
        }
        let row = LookupRow(statement: statement)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw failure(step) }
            try body(row)
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func failure(_ code: Int32) -> Failure { Failure(code: code, message: String(cString: sqlite3_errmsg(handle))) }
}

/// The row a lookup's statement stands on.
package struct LookupRow: ColumnValues {
    let statement: OpaquePointer

    private func isNull(_ index: Int) -> Bool { sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL }

    package func text(_ index: Int) -> String? {
        guard !isNull(index) else { return nil }
        guard let characters = sqlite3_column_text(statement, Int32(index)) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: characters, count: Int(sqlite3_column_bytes(statement, Int32(index)))), as: UTF8.self)
    }

    package func integer(_ index: Int) -> Int64? { isNull(index) ? nil : sqlite3_column_int64(statement, Int32(index)) }

    package func bytes(_ index: Int) -> [UInt8]? {
        guard !isNull(index) else { return nil }
        guard let blob = sqlite3_column_blob(statement, Int32(index)) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(statement, Int32(index)))))
    }
}
