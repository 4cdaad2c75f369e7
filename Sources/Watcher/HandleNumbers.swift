import SystemCalls

/// The directory handles fanotify names directories by, each with a small number (its index
/// here), kept compact: at a million entries the tree has 255,000 directories, and a dictionary of
/// 48-byte handles plus an array of them cost about 170 bytes a directory, 45 MB at that size (and
/// more while either doubled). Here a handle's filesystem and type are stored once per
/// filesystem, its bytes once in a shared array of words, and the index is open-addressed over
/// 4-byte slots: about 20 bytes a directory on ext4 (8-byte handles).
struct HandleNumbers: Sendable {
    /// What handles of one filesystem share.
    private struct Kind: Hashable, Sendable {
        var fsid: UInt64
        var type: Int32
        var length: UInt8
        var wordCount: Int { DirectoryHandle.wordCount(length: length) }

        init(of handle: DirectoryHandle) { (fsid, type, length) = (handle.fsid, handle.type, handle.length) }
    }

    private var kinds: [Kind] = []
    private var kindNumbers: [Kind: UInt16] = [:]
    /// Per index: its handle's kind, or `vacant`.
    private var kindOf: [UInt16] = []
    /// Per index: where its handle's words begin in `words`.
    private var start: [UInt32] = []
    private var words: [UInt64] = []
    /// Vacant indexes by the number of words their storage holds (0 to 4), reused before new ones.
    private var vacantByWords: [[Int]] = Array(repeating: [], count: DirectoryHandle.capacity / 8 + 1)
    /// Open addressing with linear probing: index + 1, `empty` or `removed`.
    private var slots: [UInt32] = Array(repeating: 0, count: 16)
    private var removedSlots = 0
    private(set) var count = 0

    private static let vacant = UInt16.max
    private static let empty: UInt32 = 0
    private static let removed = UInt32.max

    /// The index of `handle`, if it is held.
    func index(of handle: DirectoryHandle) -> Int? {
        guard let kind = kindNumbers[Kind(of: handle)] else { return nil }
        return find(handle, kind: kind, hash: Self.hash(handle))
    }

    /// The index of `handle`: the one it has, else a vacant one, else a new one. The handle is
    /// hashed and its kind looked up once, for the search and the placing both.
    mutating func insert(_ handle: DirectoryHandle) -> Int {
        let hash = Self.hash(handle), key = Kind(of: handle)
        let known = kindNumbers[key]
        if let known, let found = find(handle, kind: known, hash: hash) { return found }
        let kind = known ?? addKind(key)
        if (count + removedSlots + 1) * 10 > slots.count * 7 { rehash() }
        let wordCount = handle.wordCount
        let index: Int
        if let reused = vacantByWords[wordCount].popLast() {
            index = reused
            kindOf[index] = kind
            for word in 0..<wordCount { words[Int(start[index]) + word] = handle.word(word) }
        } else {
            index = kindOf.count
            kindOf.append(kind)
            start.append(UInt32(words.count))
            for word in 0..<wordCount { words.append(handle.word(word)) }
        }
        place(index, hash: hash)
        count += 1
        return index
    }

    /// Forgets the handle of `index`; its number may be given to another handle from now on.
    @discardableResult
    mutating func remove(index: Int) -> Bool {
        guard index >= 0, index < kindOf.count, kindOf[index] != Self.vacant else { return false }
        let handle = stored(index)
        let mask = slots.count - 1
        var slot = Self.hash(handle) & mask
        while slots[slot] != UInt32(index + 1) { slot = (slot + 1) & mask }
        slots[slot] = Self.removed
        removedSlots += 1
        vacantByWords[handle.wordCount].append(index)
        kindOf[index] = Self.vacant
        count -= 1
        return true
    }

    /// Where `handle` (of kind `kind`, hashing to `hash`) is held, probing from its slot.
    private func find(_ handle: DirectoryHandle, kind: UInt16, hash: Int) -> Int? {
        let mask = slots.count - 1
        var slot = hash & mask
        while true {
            let value = slots[slot]
            if value == Self.empty { return nil }
            if value != Self.removed, matches(Int(value - 1), kind: kind, handle) { return Int(value - 1) }
            slot = (slot + 1) & mask
        }
    }

    private func matches(_ index: Int, kind: UInt16, _ handle: DirectoryHandle) -> Bool {
        guard kindOf[index] == kind else { return false }
        let first = Int(start[index])
        for word in 0..<handle.wordCount where words[first + word] != handle.word(word) { return false }
        return true
    }

    /// The handle held at `index` (not vacant).
    private func stored(_ index: Int) -> DirectoryHandle {
        let kind = kinds[Int(kindOf[index])]
        let first = Int(start[index])
        return words[first..<first + kind.wordCount].withUnsafeBytes { bytes in
            DirectoryHandle(fsid: kind.fsid, type: kind.type, bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<Int(kind.length)]))!
        }
    }

    private mutating func addKind(_ kind: Kind) -> UInt16 {
        // One kind per filesystem and handle type: far fewer than 65,535 on any machine.
        precondition(kinds.count < Int(Self.vacant), "more handle kinds than a table can number")
        kinds.append(kind)
        kindNumbers[kind] = UInt16(kinds.count - 1)
        return UInt16(kinds.count - 1)
    }

    private mutating func place(_ index: Int, hash: Int) {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != Self.empty && slots[slot] != Self.removed { slot = (slot + 1) & mask }
        if slots[slot] == Self.removed { removedSlots -= 1 }
        slots[slot] = UInt32(index + 1)
    }

    /// Doubles the slots when they are mostly in use, else only clears the removed ones.
    private mutating func rehash() {
        var capacity = slots.count
        while (count + 1) * 10 > capacity * 5 { capacity *= 2 }
        slots = Array(repeating: Self.empty, count: capacity)
        removedSlots = 0
        for index in kindOf.indices where kindOf[index] != Self.vacant { place(index, hash: Self.hash(stored(index))) }
    }

    private static func hash(_ handle: DirectoryHandle) -> Int {
        var hasher = Hasher()
        hasher.combine(handle.fsid)
        hasher.combine(handle.type)
        for word in 0..<handle.wordCount { hasher.combine(handle.word(word)) }
        return hasher.finalize()
    }
}
