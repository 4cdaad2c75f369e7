public import SystemCalls

/// Node names packed into one byte array: a million short names cost their bytes, not a String
/// allocation each. Freed names leave holes that `compact` reclaims when they outweigh the rest.
public struct NameArena: Sendable {
    public init() {}

    public private(set) var bytes: [UInt8] = []
    public private(set) var freed = 0

    public struct Slice: Sendable {
        public var offset: UInt32
        public var length: UInt32
        public init(offset: UInt32, length: UInt32) {
            self.offset = offset
            self.length = length
        }

        public static let empty = Slice(offset: 0, length: 0)
    }

    /// Stores the name's coded string (`FileNameCoding`): valid UTF-8, read back exactly.
    public mutating func store(_ name: FileName) -> Slice {
        let slice = Slice(offset: UInt32(bytes.count), length: UInt32(name.string.utf8.count))
        bytes.append(contentsOf: name.string.utf8)
        return slice
    }

    public mutating func free(_ slice: Slice) { freed += Int(slice.length) }

    public func name(_ slice: Slice) -> FileName {
        let start = Int(slice.offset)
        return FileName(String(decoding: bytes[start..<start + Int(slice.length)], as: UTF8.self))
    }

    public func equals(_ slice: Slice, _ name: FileName) -> Bool {
        let start = Int(slice.offset)
        return bytes[start..<start + Int(slice.length)].elementsEqual(name.string.utf8)
    }

    public var needsCompaction: Bool { freed > 1 << 20 && freed > bytes.count / 2 }

    /// Starts over with the live names packed by the owner of the slices (see `NodeTable`).
    public mutating func replaceBytes(with packed: [UInt8]) {
        bytes = packed
        freed = 0
    }

    /// Whether a slice holds exactly these bytes.
    public func equals(_ slice: Slice, _ other: UnsafeRawBufferPointer) -> Bool {
        let start = Int(slice.offset)
        return Int(slice.length) == other.count && bytes[start..<start + other.count].elementsEqual(other)
    }

    /// The key of a child in a tree of names: its parent's id and its name's bytes, the same
    /// whether the name is given as bytes or as a stored slice.
    public static func childHash(parent: UInt32, name: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(parent)
        hasher.combine(bytes: name)
        return hasher.finalize()
    }

    public func childHash(parent: UInt32, _ slice: Slice) -> Int {
        let start = Int(slice.offset)
        return bytes[start..<start + Int(slice.length)].withUnsafeBytes { Self.childHash(parent: parent, name: $0) }
    }

    /// The path the names of a node and its ancestors make, innermost first (as found walking up):
    /// joined with `/`, none added after a name that ends with one (a root `/`).
    public func path(innermostFirst components: [Slice]) -> FilePath {
        var joined: [UInt8] = []
        for (position, slice) in components.reversed().enumerated() {
            if position > 0 && joined.last != UInt8(ascii: "/") { joined.append(UInt8(ascii: "/")) }
            let start = Int(slice.offset)
            joined += bytes[start..<start + Int(slice.length)]
        }
        return FilePath(String(decoding: joined, as: UTF8.self))
    }

    /// Reclaims freed names once they outweigh the live ones (`needsCompaction`): the live owners'
    /// names are packed again, and their slices moved.
    public mutating func compact<Owner>(_ owners: inout [Owner], name: WritableKeyPath<Owner, Slice>, isLive: (Owner) -> Bool) {
        var packed: [UInt8] = []
        for index in owners.indices where isLive(owners[index]) {
            let old = owners[index][keyPath: name]
            let start = Int(old.offset)
            owners[index][keyPath: name].offset = UInt32(packed.count)
            packed += bytes[start..<start + Int(old.length)]
        }
        replaceBytes(with: packed)
    }
}
