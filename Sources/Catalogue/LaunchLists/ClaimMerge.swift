import BundleModel
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Rule 30's answer from `launch_lists`: one cursor per claim target that can match, each reading
/// its list's entries in the answer's order (rank, newest version first, path), merged by rule
/// 30's key (`HandlerOrderKey`: the claim's part, version, path). An application's first entry in that order is its best claim,
/// so it answers there and its later entries are passed over: the merged entries are the answer,
/// with nothing left to sort, and its first handler (the default application) is known after one
/// entry per cursor. A list is one blob read in place through SQLite's C API, and an
/// application's strings are made once, for the applications that answer.
enum ClaimMerge {
    /// Finds a target's list. One statement serves every cursor: each resets it as soon as it has
    /// its list's rowid and reads the list through a blob handle of its own (a statement per cursor
    /// prepared 4,000 for a question reaching a 4,000-step conformance chain, and cached them all).
    private static let listSQL = "SELECT rowid FROM launch_lists WHERE target_kind = ? AND target = ?"

    static func handlers(_ db: Database, _ targets: [(target: LaunchClaim.Target, steps: Int, isEverything: Bool)],
                         role asked: LaunchClaim.Role?, all: Bool, limit: Int?) throws -> [HandlerRanking.Handler] {
        if let limit, limit <= 0 { return [] }
        var cursors: [Cursor] = []
        defer { for cursor in cursors { cursor.close() } }
        let statement = RawStatement(try db.cachedStatement(sql: listSQL), db)
        for target in targets {
            let (kind, value) = LaunchRows.columns(target.target)
            let cursor = Cursor(statement, target: target.target, steps: target.steps, isEverything: target.isEverything)
            cursors.append(cursor)
            try cursor.start(kind: kind, value: value)
        }
        var active = cursors.filter(\.hasRow)
        var handlers: [HandlerRanking.Handler] = []
        // An entry takes some 60 bytes: room for all the lists' applications, copied never.
        handlers.reserveCapacity(limit ?? cursors.reduce(0) { $0 + $1.size / 48 })
        var answered = BundleSet()
        var escaped = false
        // Once `limit` handlers are in, the rows that tie with the last on claim order and version
        // are still read: their paths decide, and an escaped one may be out of order (below).
        var tie: (order: Int, version: [UInt8])?
        while !active.isEmpty {
            // The cursor whose row comes first; of cursors tied, the first (claims are read in a
            // fixed order of targets: of an application's claims that rank alike, the first is shown).
            var first = 0
            for index in active.indices.dropFirst() where active[index].precedes(active[first]) { first = index }
            let cursor = active[first]
            if let tie, cursor.order != tie.order || !cursor.versionKey.elementsEqual(tie.version) { break }
            if let role = cursor.role, let rank = cursor.rank, HandlerRanking.admits(role: role, rank: rank, asked: asked, all: all),
               answered.insert(cursor.bundleID) {
                let path = cursor.path
                // A list written before the key ordered an escaped byte (FileNameCoding) by its coding.
                escaped = escaped || path.contains(0xF4)
                let application = HandlerRanking.Application(path: FilePath(String(decoding: path, as: UTF8.self)),
                                                             identifier: cursor.identifier, version: cursor.version, claims: [])
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

    /// One target's list, read in place: its blob is SQLite's, valid until the statement is reset.
    final class Cursor {
        let statement: RawStatement
        let target: LaunchClaim.Target
        let steps: Int
        let isEverything: Bool
        @exclusivity(unchecked) private(set) var hasRow = false
        /// The entry's claim part of rule 30's key (`HandlerOrderKey.claim`).
        @exclusivity(unchecked) private(set) var order = 0
        @exclusivity(unchecked) private(set) var rank: LaunchClaim.Rank?
        @exclusivity(unchecked) private var reader: LaunchListReader?
        @exclusivity(unchecked) private var blob: OpaquePointer?
        private var handle: OpaquePointer { statement.handle }

        init(_ statement: RawStatement, target: LaunchClaim.Target, steps: Int, isEverything: Bool) {
            self.statement = statement
            self.target = target
            self.steps = steps
            self.isEverything = isEverything
        }

        /// Finds the target's list and reads its first entry, through an incremental blob read:
        /// a list's pages are read as the merge reaches them.
        func start(kind: String, value: String) throws {
            sqlite3_reset(handle)
            statement.bind(1, kind)
            statement.bind(2, value)
            let code = sqlite3_step(handle)
            guard code == SQLITE_ROW || code == SQLITE_DONE else { throw statement.error(code) }
            guard code == SQLITE_ROW else { return }
            let rowid = sqlite3_column_int64(handle, 0)
            sqlite3_reset(handle)
            var opened: OpaquePointer?
            let status = sqlite3_blob_open(statement.connection, "main", "launch_lists", "entries", rowid, 0, &opened)
            guard status == SQLITE_OK, let opened else { sqlite3_blob_close(opened); throw statement.error(status) }
            blob = opened
            reader = try LaunchListReader(total: Int(sqlite3_blob_bytes(opened))) { [statement] buffer, offset in
                let read = sqlite3_blob_read(opened, buffer.baseAddress, Int32(buffer.count), Int32(offset))
                guard read == SQLITE_OK else { throw statement.error(read) }
            }
            try advance()
        }

        func advance() throws {
            guard let reader else { return }
            hasRow = try reader.next()
            guard hasRow else { return }
            // A rank this version does not know (a list written by another) sorts last and answers nothing.
            rank = LaunchClaim.Rank(order: Int(reader.order))
            order = rank.map { HandlerOrderKey.claim(isEverything: isEverything, rank: $0, steps: steps) } ?? .max
        }

        func close() {
            reader = nil
            if let blob { sqlite3_blob_close(blob) }
            blob = nil
            sqlite3_reset(handle)
        }

        /// The list's bytes (0 when there is none): what the answer may hold.
        var size: Int { reader?.total ?? 0 }
        var versionKey: UnsafeRawBufferPointer { reader!.versionKey }
        var path: UnsafeRawBufferPointer { reader!.path }
        var bundleID: Int64 { reader!.bundleID }
        var role: LaunchClaim.Role? { reader.flatMap { Int($0.role) < Self.roles.count ? Self.roles[Int($0.role)] : nil } }
        var identifier: String? { reader!.identifier.map { String(decoding: $0, as: UTF8.self) } }
        var version: String? { reader!.version.map { String(decoding: $0, as: UTF8.self) } }

        private static let roles = LaunchListCoding.roleCodes.map { LaunchClaim.Role(rawValue: $0) }

        /// Whether this entry comes before the other cursor's in the answer (rule 30's key). The
        /// claim part decides most comparisons and is compared first: making both keys reads four
        /// slices through the readers, for nothing when the claims differ.
        func precedes(_ other: Cursor) -> Bool {
            if order != other.order { return order < other.order }
            return HandlerOrderKey.compare(HandlerOrderKey(claim: order, version: versionKey, path: path),
                                           HandlerOrderKey(claim: other.order, version: other.versionKey, path: other.path)) < 0
        }
    }

    /// The applications answered so far, by bundle id: one bit each for rowids up to `denseLimit`
    /// (they are small and dense), a set beyond it, so that an id a damaged list makes up (2^36,
    /// 2^62) costs an entry, not an allocation the size of the id.
    struct BundleSet {
        static let denseLimit: Int64 = 1 << 24
        private var words: [UInt64] = []
        private var sparse: Set<Int64> = []

        /// Whether `id` was not there before.
        mutating func insert(_ id: Int64) -> Bool {
            guard id >= 0 else { return false }
            guard id < Self.denseLimit else { return sparse.insert(id).inserted }
            let word = Int(id >> 6), bit = UInt64(1) << UInt64(id & 63)
            if word >= words.count { words.append(contentsOf: repeatElement(0, count: max(word + 1 - words.count, words.count))) }
            defer { words[word] |= bit }
            return words[word] & bit == 0
        }
    }
}
