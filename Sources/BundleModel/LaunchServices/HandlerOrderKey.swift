#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Rule 30's order (BUNDLES.md rule 30), stated once: specific claims before claims of everything;
/// then the rank (Owner, Default, Alternate, None); then fewer steps up the conformance tree; then
/// the higher CFBundleVersion (rule 20); then the path, by its bytes; then, for an answer across
/// PostgreSQL's hosts, the host. Whatever orders handlers compares this key: the in-memory ranking
/// (`HandlerRanking.precedes`, and `order(pathOrdered:)` through `Ranks`, its integer encoding
/// below), the catalogue's lists as they are written (`LaunchListCoding`) and as they are merged
/// (`ClaimMerge`). Its parts are bytes someone else owns, so that comparing allocates nothing.
public struct HandlerOrderKey {
    /// Rank class, rank and steps as one number, smaller first (`claim(isEverything:rank:steps:)`).
    public var claim: Int
    /// The application's `BundleVersion.Key` bytes: the higher version first.
    public var version: UnsafeRawBufferPointer
    /// The path as a `FilePath` holds it (`FileNameCoding`'s UTF-8), ordered by the bytes it stands for.
    public var path: UnsafeRawBufferPointer
    /// The host's UTF-8, empty for one catalogue.
    public var host: UnsafeRawBufferPointer

    public init(claim: Int, version: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer,
                host: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        self.claim = claim
        self.version = version
        self.path = path
        self.host = host
    }

    /// The claim's part as one number, smaller first: specific before everything (bit 10), then
    /// the rank's order (bits 8–9), then fewer steps (a chain of over 255 counts as 255: no real
    /// tree is a tenth as deep).
    public static func claim(isEverything: Bool, rank: LaunchClaim.Rank, steps: Int) -> Int {
        (isEverything ? 1 << 10 : 0) | rank.order << 8 | min(max(steps, 0), 255)
    }

    /// Negative when `a` comes first, zero when they tie.
    public static func compare(_ a: HandlerOrderKey, _ b: HandlerOrderKey) -> Int {
        if a.claim != b.claim { return a.claim < b.claim ? -1 : 1 }
        let versions = compareVersions(a.version, b.version)
        if versions != 0 { return versions }
        let paths = comparePaths(a.path, b.path)
        if paths != 0 { return paths }
        return compareBytes(a.host, b.host)
    }

    /// The version's part: the higher first (a key's bytes order older first).
    public static func compareVersions(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        -compareBytes(a, b)
    }

    /// The path's part: the file-system bytes' order (what `LC_ALL=C ls` shows, and `FilePath`'s
    /// `<`). A byte that is not UTF-8 is held escaped, as a scalar led by 0xF4, which orders
    /// otherwise than the byte it stands for: where the two differ inside such a scalar, their
    /// bytes decide.
    public static func comparePaths(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let shared = min(a.count, b.count)
        guard shared > 0, let x = a.baseAddress, let y = b.baseAddress else { return a.count - b.count }
        let order = memcmp(x, y, shared)
        if order == 0 { return a.count - b.count } // a prefix ends on a scalar boundary of both
        guard memchr(x, 0xF4, shared) != nil || memchr(y, 0xF4, shared) != nil else { return Int(order) }
        var index = 0
        while a[index] == b[index] { index += 1 }
        var start = index
        while start > 0 && a[start] & 0xC0 == 0x80 && b[start] & 0xC0 == 0x80 { start -= 1 }
        guard a[start] == 0xF4 || b[start] == 0xF4 else { return Int(order) }
        let rawA = FileNameCoding.bytes(of: String(decoding: a[start...], as: UTF8.self))
        let rawB = FileNameCoding.bytes(of: String(decoding: b[start...], as: UTF8.self))
        return rawA.lexicographicallyPrecedes(rawB) ? -1 : rawB.lexicographicallyPrecedes(rawA) ? 1 : 0
    }

    /// SQLite's BINARY order: the bytes, then the length.
    public static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, shared)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Whether `a` comes before `b` by the key's path and host parts alone: the order
    /// `Ranks.position` counts in.
    static func placePrecedes(_ a: HandlerRanking.Handler, _ b: HandlerRanking.Handler) -> Bool {
        with(a, version: BundleVersion.Key(bytes: [])) { x in
            with(b, version: BundleVersion.Key(bytes: [])) { y in
                let paths = comparePaths(x.path, y.path)
                return paths != 0 ? paths < 0 : compareBytes(x.host, y.host) < 0
            }
        }
    }

    /// Calls `body` with the key of `handler`, whose version's key is `version`.
    static func with<R>(_ handler: HandlerRanking.Handler, version: BundleVersion.Key, _ body: (HandlerOrderKey) -> R) -> R {
        var path = handler.application.path.string, host = handler.application.host ?? ""
        let claim = Self.claim(isEverything: handler.isEverything, rank: handler.claim.rank, steps: handler.steps)
        return version.bytes.withUnsafeBytes { version in
            path.withUTF8 { path in
                host.withUTF8 { host in
                    body(HandlerOrderKey(claim: claim, version: version, path: UnsafeRawBufferPointer(path), host: UnsafeRawBufferPointer(host)))
                }
            }
        }
    }
}

extension HandlerOrderKey {
    /// The key as integers, for sorting many handlers without comparing their strings: the claim's
    /// part; the version's newness (its place among the distinct versions in the key's order,
    /// versions that tie alike); and the handler's place in the order of the key's path and host
    /// parts (a catalogue reads its claims in that order already). Compared as a tuple they order
    /// as `compare`; `packed` is the same tuple as one integer, when its parts fit.
    public struct Ranks: Comparable {
        public var claim: Int
        public var newness: Int
        public var position: Int

        public static func < (a: Ranks, b: Ranks) -> Bool { (a.claim, a.newness, a.position) < (b.claim, b.newness, b.position) }

        /// Widths of `packed`: claim 11 bits (`claim(isEverything:rank:steps:)`), newness 21, position 32.
        static let newnessLimit = 1 << 21, positionLimit = 1 << 32

        /// Whether every handler's ranks fit `packed`.
        public static func fit(distinctVersions: Int, handlers: Int) -> Bool { distinctVersions < newnessLimit && handlers < positionLimit }

        public var packed: UInt64 { UInt64(claim) << 53 | UInt64(newness) << 32 | UInt64(position) }

        public static func position(ofPacked packed: UInt64) -> Int { Int(packed & 0xFFFF_FFFF) }
    }

    /// The newness of each of `versions` (distinct strings): 0 for the highest, versions that
    /// compare the same alike (`1.0` and `1.00`).
    public static func newness(of versions: [String]) -> [Int] {
        let distinct = versions.enumerated().map { (slot: $0.offset, key: BundleVersion.Key($0.element)) }
            .sorted { a, b in a.key.bytes.withUnsafeBytes { x in b.key.bytes.withUnsafeBytes { y in compareVersions(x, y) < 0 } } }
        var newness = [Int](repeating: 0, count: versions.count)
        for (index, version) in distinct.enumerated() {
            let same = index > 0 && distinct[index - 1].key == version.key
            newness[version.slot] = same ? newness[distinct[index - 1].slot] : index
        }
        return newness
    }
}
