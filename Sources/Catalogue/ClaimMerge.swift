import BundleModel
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Rule 30's answer from `launch_claims`: one cursor per claim target that can match, each reading
/// its rows in the answer's order (the table's key: rank, newest version first, path), merged by
/// (the claim's order, version, path). An application's first row in that order is its best
/// claim, so it answers there and its later rows are passed over: the merged rows are the answer,
/// with nothing left to sort, and its first handler (the default application) is known after one
/// row per cursor. Rows are read through SQLite's C API, and an application's strings are made
/// once, for the applications that answer.
enum ClaimMerge {
    private static func sql(_ index: Int) -> String {
        // One statement per cursor, all stepping at once: the comment makes each its own cached one.
        // The key's order, said rather than assumed: SQLite reads it off the key, with no sort.
        """
        SELECT /* \(index) */ rank_order, version_key, path, role, bundle_id, identifier, version FROM launch_claims
        WHERE target_kind = ? AND target = ? ORDER BY rank_order, version_key DESC, path, role
        """
    }

    static func handlers(_ db: Database, _ targets: [(target: LaunchClaim.Target, steps: Int, isEverything: Bool)],
                         role asked: LaunchClaim.Role?, all: Bool, limit: Int?) throws -> [HandlerRanking.Handler] {
        if let limit, limit <= 0 { return [] }
        var cursors: [Cursor] = []
        defer { for cursor in cursors { cursor.close() } }
        for (index, target) in targets.enumerated() {
            let (kind, value) = LaunchRows.columns(target.target)
            let statement = RawStatement(try db.cachedStatement(sql: sql(index)), db)
            let cursor = Cursor(statement, target: target.target, steps: target.steps, isEverything: target.isEverything)
            cursors.append(cursor)
            try cursor.start(kind: kind, value: value)
        }
        var active = cursors.filter(\.hasRow)
        var handlers: [HandlerRanking.Handler] = []
        var answered = Set<Int64>(minimumCapacity: 1_024)
        var escaped = false
        // Once `limit` handlers are in, the rows that tie with the last on claim order and version
        // are still read: their paths decide, and an escaped one orders by its bytes (below).
        var tie: (order: Int, version: [UInt8])?
        while !active.isEmpty {
            // The cursor whose row comes first; of cursors tied, the first (claims are read in a
            // fixed order of targets: of an application's claims that rank alike, the first is shown).
            var first = 0
            for index in active.indices.dropFirst() where active[index].precedes(active[first]) { first = index }
            let cursor = active[first]
            if let tie, cursor.order != tie.order || !cursor.versionKey.elementsEqual(tie.version) { break }
            if let role = cursor.role, let rank = cursor.rank, HandlerRanking.admits(role: role, rank: rank, asked: asked, all: all),
               answered.insert(cursor.bundleID).inserted {
                let path = cursor.path
                // An escaped byte (FileNameCoding) orders differently in the coded text than in the raw path.
                escaped = escaped || path.contains(0xF4)
                let application = HandlerRanking.Application(path: FilePath(String(decoding: path, as: UTF8.self)), identifier: cursor.text(5),
                                                             version: cursor.text(6), claims: [])
                handlers.append(HandlerRanking.Handler(application: application, claim: LaunchClaim(target: cursor.target, role: role, rank: rank),
                                                       steps: cursor.steps, isEverything: cursor.isEverything))
                if let limit, handlers.count == limit { tie = (cursor.order, Array(cursor.versionKey)) }
            }
            try cursor.advance()
            if !cursor.hasRow { active.remove(at: first) }
        }
        if escaped { handlers.sort(by: HandlerRanking.precedes) }
        if let limit, handlers.count > limit { handlers.removeLast(handlers.count - limit) }
        return handlers
    }

    /// SQLite's BINARY order: the bytes, then the length.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, shared)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// One target's rows. A row's text is SQLite's, valid until the statement steps again.
    final class Cursor {
        let statement: RawStatement
        let target: LaunchClaim.Target
        let steps: Int
        let isEverything: Bool
        private(set) var hasRow = false
        /// The row's claim order (`HandlerRanking.claimOrder`), for the merge.
        private(set) var order = 0
        private(set) var rank: LaunchClaim.Rank?
        /// The row's version key and path, read once per row: the merge compares them often.
        private(set) var versionKey = UnsafeRawBufferPointer(start: nil, count: 0)
        private(set) var path = UnsafeRawBufferPointer(start: nil, count: 0)
        private var handle: OpaquePointer { statement.handle }

        init(_ statement: RawStatement, target: LaunchClaim.Target, steps: Int, isEverything: Bool) {
            self.statement = statement
            self.target = target
            self.steps = steps
            self.isEverything = isEverything
        }

        func start(kind: String, value: String) throws {
            sqlite3_reset(handle)
            statement.bind(1, kind)
            statement.bind(2, value)
            try advance()
        }

        func advance() throws {
            let code = sqlite3_step(handle)
            guard code == SQLITE_ROW || code == SQLITE_DONE else { throw statement.error(code) }
            hasRow = code == SQLITE_ROW
            guard hasRow else { return }
            // A rank this version does not know (a row written by hand) sorts last and answers nothing.
            rank = LaunchClaim.Rank(order: Int(sqlite3_column_int64(handle, 0)))
            order = rank.map { HandlerRanking.claimOrder(isEverything: isEverything, rank: $0, steps: steps) } ?? .max
            versionKey = bytes(1)
            path = bytes(2)
        }

        func close() { sqlite3_reset(handle) }

        /// Whether this row comes before the other cursor's in the answer: by claim order, then
        /// newer version, then path.
        func precedes(_ other: Cursor) -> Bool {
            if order != other.order { return order < other.order }
            let versions = ClaimMerge.compare(versionKey, other.versionKey)
            if versions != 0 { return versions > 0 }
            return ClaimMerge.compare(path, other.path) < 0
        }

        var bundleID: Int64 { sqlite3_column_int64(handle, 4) }
        var role: LaunchClaim.Role? { Self.decode(bytes(3), Self.roles) }

        private static let roles = LaunchClaim.Role.allCases.map { ($0, Array($0.rawValue.utf8)) }

        /// A role from its stored name, without making a string per row.
        private static func decode<Value>(_ bytes: UnsafeRawBufferPointer, _ names: [(Value, [UInt8])]) -> Value? {
            names.first { name in name.1.withUnsafeBytes { ClaimMerge.compare($0, bytes) == 0 } }?.0
        }

        func text(_ column: Int32) -> String? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : String(decoding: bytes(column), as: UTF8.self)
        }

        private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
            let start = column == 1 ? sqlite3_column_blob(handle, column) : UnsafeRawPointer(sqlite3_column_text(handle, column))
            return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column)))
        }
    }
}
