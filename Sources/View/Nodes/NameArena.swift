import SystemCalls

/// Node names packed into one byte array: a million short names cost their bytes, not a String
/// allocation each. Freed names leave holes that `compact` reclaims when they outweigh the rest.
struct NameArena {
    private(set) var bytes: [UInt8] = []
    private(set) var freed = 0

    struct Slice: Sendable {
        var offset: UInt32
        var length: UInt32
        static let empty = Slice(offset: 0, length: 0)
    }

    /// Stores the name's coded string (`FileNameCoding`): valid UTF-8, read back exactly.
    mutating func store(_ name: FileName) -> Slice {
        let slice = Slice(offset: UInt32(bytes.count), length: UInt32(name.string.utf8.count))
        bytes.append(contentsOf: name.string.utf8)
        return slice
    }

    mutating func free(_ slice: Slice) { freed += Int(slice.length) }

    func name(_ slice: Slice) -> FileName {
        let start = Int(slice.offset)
        return FileName(String(decoding: bytes[start..<start + Int(slice.length)], as: UTF8.self))
    }

    func equals(_ slice: Slice, _ name: FileName) -> Bool {
        let start = Int(slice.offset)
        return bytes[start..<start + Int(slice.length)].elementsEqual(name.string.utf8)
    }

    var needsCompaction: Bool { freed > 1 << 20 && freed > bytes.count / 2 }

    /// Starts over with the live names packed by the owner of the slices (see `NodeTable`).
    mutating func replaceBytes(with packed: [UInt8]) {
        bytes = packed
        freed = 0
    }
}
