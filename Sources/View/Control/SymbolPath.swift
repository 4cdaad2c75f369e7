import BundleModel

/// A directory of `.bundlefs/symbols`: its layout (nil for `symbols` itself) and its path below the
/// layout's root as it was asked for. Lookups ignore case, and each spelling is a node of its own:
/// the kernel lets a directory have one name only.
///
/// One string and a hash computed once: a first `ls -R` of `native` makes 135,000 of these, each
/// hashed for the node table and again for its inode number (an array of strings cost an
/// allocation per component and a hash of every byte per use).
struct SymbolPath: Hashable, Sendable {
    let layout: SymbolLayout?
    /// The components joined by `/` (a name holds none).
    let spelled: String
    let depth: Int
    private let hashCode: Int

    init(layout: SymbolLayout?, components: [String]) {
        self.init(layout: layout, spelled: components.joined(separator: "/"), depth: components.count)
    }

    private init(layout: SymbolLayout?, spelled: String, depth: Int) {
        self.layout = layout
        self.spelled = spelled
        self.depth = depth
        var hasher = Hasher()
        hasher.combine(layout)
        hasher.combine(spelled)
        hashCode = hasher.finalize()
    }

    static let top = SymbolPath(layout: nil, components: [])

    var components: [String] {
        depth == 0 ? [] : spelled.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    var lastComponent: String? { components.last }

    /// The directory `name` names in this one.
    func appending(_ name: String) -> SymbolPath {
        SymbolPath(layout: layout, spelled: depth == 0 ? name : spelled + "/" + name, depth: depth + 1)
    }

    /// The directory this one is in (itself for a layout's root).
    var parent: SymbolPath { SymbolPath(layout: layout, components: components.dropLast()) }

    /// The key prefix it spells: its components joined, lower-cased.
    var keyPrefix: String { String(decoding: folded.utf8.filter { $0 != UInt8(ascii: "/") }, as: UTF8.self) }

    /// Its spelling without case, `/` between components: what a layout's path of a key is
    /// compared with.
    var folded: String { spelled.lowercased() }

    static func == (a: SymbolPath, b: SymbolPath) -> Bool {
        a.hashCode == b.hashCode && a.depth == b.depth && a.layout == b.layout && a.spelled == b.spelled
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }
}
