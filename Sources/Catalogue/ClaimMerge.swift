import BundleModel
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Rule 30's answer from `launch_claims`: one cursor per claim target that can match, each reading
/// its rows in path order (the table's key), merged into one handler per application in path
/// order, which is the ranking's last tie-break: ranking them then compares small integers only.
/// Rows are read through SQLite's C API, and an application's strings are made once, for the
/// applications that answer (GRDB's rows and a sort comparing paths made thousands of handlers
/// take 30 ms).
enum ClaimMerge {
    private static func sql(_ index: Int) -> String {
        // One statement per cursor, all stepping at once: the comment makes each its own cached one.
        "SELECT /* \(index) */ path, role, rank, identifier, version FROM launch_claims WHERE target_kind = ? AND target = ?"
    }

    static func handlers(_ db: Database, _ targets: [(target: LaunchClaim.Target, steps: Int, isEverything: Bool)],
                         role asked: LaunchClaim.Role?, all: Bool) throws -> [HandlerRanking.Handler] {
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
        var path: [UInt8] = []
        var atLeast: [Int] = []
        var escaped = false
        while !active.isEmpty {
            // The least path among the cursors' rows, and the cursors at it; copied, since the row
            // it is in is stepped past below.
            var least = active[0].path
            atLeast.removeAll(keepingCapacity: true)
            atLeast.append(0)
            for index in active.indices.dropFirst() {
                let order = Self.compare(active[index].path, least)
                if order < 0 {
                    least = active[index].path
                    atLeast.removeAll(keepingCapacity: true)
                }
                if order <= 0 { atLeast.append(index) }
            }
            path.removeAll(keepingCapacity: true)
            path.append(contentsOf: least)
            // An escaped byte (FileNameCoding) orders differently in the coded text than in the raw path.
            escaped = escaped || path.contains(0xF4)
            // The application's rows, one per claim that matched: the best admitted one ranks it.
            // Compared as numbers, row by row; its claim is made once.
            var best: (order: Int, cursor: Cursor, role: LaunchClaim.Role, rank: LaunchClaim.Rank)?
            var identifier: String?, version: String?
            try path.withUnsafeBytes { path in
                for index in atLeast {
                    let cursor = active[index]
                    repeat {
                        if let role = cursor.role, let rank = cursor.rank, HandlerRanking.admits(role: role, rank: rank, asked: asked, all: all) {
                            let order = HandlerRanking.claimOrder(isEverything: cursor.isEverything, rank: rank, steps: cursor.steps)
                            if best == nil { (identifier, version) = (cursor.text(3), cursor.text(4)) }
                            if order < best?.order ?? .max { best = (order, cursor, role, rank) }
                        }
                        try cursor.advance()
                    } while cursor.hasRow && Self.compare(cursor.path, path) == 0
                }
            }
            active.removeAll { !$0.hasRow }
            guard let best else { continue }
            // The handler says the claim that ranks it; the application's other claims are not read.
            let application = HandlerRanking.Application(path: FilePath(String(decoding: path, as: UTF8.self)), identifier: identifier,
                                                         version: version, claims: [])
            let claim = LaunchClaim(target: best.cursor.target, role: best.role, rank: best.rank)
            handlers.append(HandlerRanking.Handler(application: application, claim: claim, steps: best.cursor.steps, isEverything: best.cursor.isEverything))
        }
        if escaped { handlers.sort { $0.application.path < $1.application.path } }
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
            path = hasRow ? bytes(0) : UnsafeRawBufferPointer(start: nil, count: 0)
        }

        func close() { sqlite3_reset(handle) }

        /// The row's role and rank; nil for one this version does not know (a row written by hand).
        var role: LaunchClaim.Role? { Self.decode(bytes(1), Self.roles) }
        var rank: LaunchClaim.Rank? { Self.decode(bytes(2), Self.ranks) }

        private static let roles = LaunchClaim.Role.allCases.map { ($0, Array($0.rawValue.utf8)) }
        private static let ranks = LaunchClaim.Rank.allCases.map { ($0, Array($0.rawValue.utf8)) }

        /// A role or rank from its stored name, without making a string per row.
        private static func decode<Value>(_ bytes: UnsafeRawBufferPointer, _ names: [(Value, [UInt8])]) -> Value? {
            names.first { name in name.1.withUnsafeBytes { ClaimMerge.compare($0, bytes) == 0 } }?.0
        }

        func text(_ column: Int32) -> String? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : String(decoding: bytes(column), as: UTF8.self)
        }

        private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
            let start = sqlite3_column_text(handle, column)
            return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column)))
        }
    }
}
