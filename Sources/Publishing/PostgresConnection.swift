import BundleModel
import CPostgres
#if canImport(Glibc)
import Glibc
#endif

/// What PostgreSQL or libpq said went wrong: its message (which never holds a password), and the
/// SQLSTATE when the server gave one.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let sqlState: String?
    public var description: String { message }

    /// The message on one line: libpq puts the server's HINT and CONTEXT on lines of their own,
    /// which in a log or a one-line error would read as separate messages.
    init(_ message: String, sqlState: String? = nil) {
        self.message = message.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces }.filter { !$0.isEmpty }.joined(separator: " ")
        self.sqlState = sqlState
    }
}

/// One libpq connection, used from one thread at a time. Parameters are sent as text (`$1`…),
/// never spliced into SQL; `COPY … FROM STDIN` is the bulk path.
public final class PostgresConnection {
    private let handle: OpaquePointer
    /// The password the string carries, if any: taken out of every message libpq gives back.
    private let password: String?

    /// Connects with libpq's conventions: `url` is a URI or `key=value` string, and what it leaves
    /// out comes from `PGHOST`, `PGUSER`…, `PGSERVICE`, `~/.pgpass`, as psql does.
    public init(_ url: String) throws {
        // Parsed first: libpq's own complaint about a malformed string may quote any part of it.
        password = try PostgresURL.parsedPassword(url)
        // A daemon must not hang on a server that never answers: connect_timeout 10 s unless the
        // string or PGCONNECT_TIMEOUT says otherwise (later keywords win, so the string's own wins).
        var keywords = ["dbname"], values = [url]
        if getenv("PGCONNECT_TIMEOUT") == nil {
            keywords.insert("connect_timeout", at: 0)
            values.insert("10", at: 0)
        }
        // Nor on one the network lost without a reset (a laptop gone, a link cut): over TCP, an
        // idle connection is probed after 30 s and given up after three unanswered probes 10 s
        // apart, and a request the server never acknowledges fails after 60 s, instead of the
        // system's two hours (or about fifteen minutes of retransmissions) with a thread waiting.
        // The string's own values win; on a Unix socket libpq ignores them.
        keywords.insert(contentsOf: Self.deadPeerKeywords.map(\.keyword), at: 0)
        values.insert(contentsOf: Self.deadPeerKeywords.map(\.value), at: 0)
        // libpq's …Params take NULL-terminated arrays.
        let connected = withCStrings(keywords + [nil]) { keywordPointers in
            withCStrings(values + [nil]) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let handle = connected else { throw PostgresError("libpq could not allocate a connection") }
        self.handle = handle
        // Thrown from here on, the object is fully made: its deinit frees the handle.
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            throw PostgresError(message.isEmpty ? "cannot connect" : scrubbed(message))
        }
        // Text goes both ways as UTF-8 whatever the database's encoding.
        guard PQsetClientEncoding(handle, "UTF8") == 0 else {
            let message = String(cString: PQerrorMessage(handle))
            throw PostgresError("cannot use UTF-8 with this database: \(scrubbed(message))")
        }
        // Our own notices ("relation already exists, skipping") are not the user's business.
        _ = PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// libpq's TCP settings for a peer that went away without a word.
    static let deadPeerKeywords: [(keyword: String, value: String)] = [
        ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
        ("tcp_user_timeout", "60000"),
    ]

    /// The connection's socket, for tests that look at its options.
    var socketDescriptor: Int32 { PQsocket(handle) }

    /// False once the server went away; the publisher then connects anew.
    public var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Connected and outside any transaction: ready for the next one (a failed transaction whose
    /// ROLLBACK did not get through leaves it otherwise).
    public var isIdle: Bool { isUsable && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Runs one statement with text parameters (nil is NULL) and returns its rows as text.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
        let result = withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try scrubbingErrors { try PostgresRows(checking: result, connection: handle) }
    }

    /// A message without the connection's password in it, raw or percent-encoded.
    func scrubbed(_ message: String) -> String { PostgresURL.removing(password, from: message) }

    private func scrubbingErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PostgresError { throw PostgresError(scrubbed(error.message), sqlState: error.sqlState) }
    }

    /// Runs several statements given as one string (no parameters): schema changes.
    public func executeScript(_ sql: String) throws {
        _ = try scrubbingErrors { try PostgresRows(checking: PQexec(handle, sql), connection: handle) }
    }

    /// `COPY table (columns) FROM STDIN` in binary format; `body` writes the rows.
    public func copy(into table: String, columns: [String], _ body: (inout PostgresCopyRows) throws -> Void) throws {
        let started = PQexec(handle, "COPY \(table) (\(columns.joined(separator: ", "))) FROM STDIN (FORMAT binary)")
        guard PQresultStatus(started) == PGRES_COPY_IN else { _ = try scrubbingErrors { try PostgresRows(checking: started, connection: handle) }; return }
        PQclear(started)
        var rows = PostgresCopyRows(columns: columns.count)
        var failure: (any Error)?
        do {
            try body(&rows)
            rows.finish()
            try send(rows.buffer)
        } catch {
            failure = error
        }
        var firstError: (any Error)? = failure
        let ended = failure == nil ? PQputCopyEnd(handle, nil) : PQputCopyEnd(handle, "bundlefs stopped the copy")
        if ended != 1 {
            firstError = firstError ?? PostgresError(scrubbed(String(cString: PQerrorMessage(handle))))
        }
        // The COPY's outcome, then the end of the results. A server still waiting for data (the
        // end could not be sent) is told again to end, as psql does, rather than waited on forever.
        var endings = 0
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) == PGRES_COPY_IN {
                PQclear(result)
                endings += 1
                firstError = firstError ?? PostgresError("the server did not take the end of the copy")
                if endings > 3 || PQputCopyEnd(handle, "bundlefs could not end the copy") != 1 { break }
                continue
            }
            do { _ = try scrubbingErrors { try PostgresRows(checking: result, connection: handle) } } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    /// Sends buffered COPY data in pieces libpq accepts.
    func send(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        }
        guard status == 1 else { throw PostgresError(scrubbed(String(cString: PQerrorMessage(handle)))) }
    }

    /// Streams COPY data written so far, so that a large copy is not held whole in memory.
    public func flush(_ rows: inout PostgresCopyRows) throws {
        try send(rows.buffer)
        rows.buffer.removeAll(keepingCapacity: true)
    }
}

/// A finished statement's rows, as text (libpq's text format).
public struct PostgresRows {
    public private(set) var rows: [[String?]] = []
    /// The rows an `INSERT`, `UPDATE`, `DELETE` or `COPY` touched (libpq's `PQcmdTuples`).
    public private(set) var affected = 0

    init(checking result: OpaquePointer?, connection: OpaquePointer) throws {
        guard let result else { throw PostgresError(String(cString: PQerrorMessage(connection))) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw PostgresError(String(cString: PQresultErrorMessage(result)), sqlState: state)
        }
        affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        let count = PQntuples(result), width = PQnfields(result)
        rows.reserveCapacity(Int(count))
        for row in 0..<count {
            rows.append((0..<width).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
    }

    /// The first column of the first row.
    public var scalar: String? { rows.first?.first ?? nil }
}

/// C strings (nil as NULL) alive for the call, as libpq takes parameters and keyword arrays.
private func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    let constant = copies.map { $0.map { UnsafePointer($0) } }
    return constant.withUnsafeBufferPointer { body($0.baseAddress!) }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
