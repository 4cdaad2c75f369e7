/// A set of small numbers as bits: which of the known tree's directories a scan visited, at one bit
/// each (their paths, kept instead, cost 50 MB at 250,000 directories).
public struct OrdinalSet: Sendable {
    private var words: [UInt64] = []

    public init() {}

    public mutating func insert(_ ordinal: UInt32) {
        let word = Int(ordinal >> 6)
        if word >= words.count { words += [UInt64](repeating: 0, count: word + 1 - words.count) }
        words[word] |= 1 << UInt64(ordinal & 63)
    }

    public func contains(_ ordinal: UInt32) -> Bool {
        let word = Int(ordinal >> 6)
        return word < words.count && words[word] & (1 << UInt64(ordinal & 63)) != 0
    }

    public mutating func formUnion(_ ordinals: [UInt32]) {
        for ordinal in ordinals { insert(ordinal) }
    }
}
