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
}
