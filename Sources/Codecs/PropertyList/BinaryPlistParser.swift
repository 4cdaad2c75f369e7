/// Apple's binary property-list format (`bplist00`). Every offset, length and reference is checked
/// against the file before use; a reference back into the chain being built is a cycle; and what
/// the values expand to is bounded twice by the file size: their number, and their bytes (every
/// reference to a shared string or data object counts its bytes again), so shared sub-objects can
/// expand a small file neither into an exponential tree nor into gigabytes of copies.
struct BinaryPlistParser {
    private let bytes: [UInt8]
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var offsetTableStart = 0
    /// By object number, whether the object is a collection in the chain being built: a reference
    /// to one is a cycle. Arrays of the object count (a byte or four each, at most the file's size
    /// in objects), not hashed sets: a page of records parses hundreds of plists.
    private var inProgress: [Bool] = []
    private var budget: Int
    /// Bytes the values may expand to, counting a shared object once per reference: that is what
    /// the catalogue's JSON and the view's XML write out.
    private var expansionBudget: Int
    /// Strings and data already read, by object number (index + 1 in `leafValues`, 0 for none):
    /// references share one copy.
    private var leafIndex: [UInt32] = []
    private var leafValues: [PlistValue] = []

    /// Per-value bytes charged besides a string's or data's own: what a value costs to hold.
    static let valueCost = 16

    static func isBinary(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Array("bplist0".utf8)) }

    static func parse(_ bytes: [UInt8]) throws(PlistError) -> PlistValue {
        var parser = BinaryPlistParser(bytes: bytes)
        return try parser.parseDocument()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        budget = bytes.count * 4 + 1024
        expansionBudget = Self.expansionLimit(fileSize: bytes.count)
    }

    /// Sixteen times the file, at least 1 MiB and at most 32 MiB: real plists share keys and short
    /// strings (a few times their size expanded); an Info dictionary near 32 MiB is an attack.
    static func expansionLimit(fileSize: Int) -> Int { min(max(fileSize * 16, 1 << 20), 32 << 20) }

    private mutating func charge(_ bytes: Int) throws(PlistError) {
        expansionBudget -= bytes + Self.valueCost
        guard expansionBudget >= 0 else {
            throw PlistError("binary plist expands to more than \(Self.expansionLimit(fileSize: self.bytes.count) >> 20) MiB (shared objects referenced over and over)")
        }
    }

    private mutating func parseDocument() throws(PlistError) -> PlistValue {
        guard bytes.count >= 8 + 32 else { throw PlistError("binary plist is truncated (\(bytes.count) bytes)") }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PlistError("binary plist trailer has invalid sizes")
        }
        let count = readUInt(at: trailer + 8, size: 8)
        let top = readUInt(at: trailer + 16, size: 8)
        let tableOffset = readUInt(at: trailer + 24, size: 8)
        guard count > 0, count <= UInt64(bytes.count), top < count,
              tableOffset >= 8, tableOffset < UInt64(trailer),
              (UInt64(trailer) - tableOffset) / UInt64(offsetSize) >= count
        else { throw PlistError("binary plist trailer points outside the file") }
        objectCount = Int(count)
        offsetTableStart = Int(tableOffset)
        inProgress = Array(repeating: false, count: objectCount)
        leafIndex = Array(repeating: 0, count: objectCount)
        return try object(Int(top), depth: 0)
    }

    private func readUInt(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func offset(ofObject number: Int) throws(PlistError) -> Int {
        let value = readUInt(at: offsetTableStart + number * offsetSize, size: offsetSize)
        guard value >= 8, value < UInt64(offsetTableStart) else {
            throw PlistError("binary plist object \(number) lies outside the object area")
        }
        return Int(value)
    }

    private mutating func object(_ number: Int, depth: Int) throws(PlistError) -> PlistValue {
        guard number < objectCount else { throw PlistError("binary plist refers to object \(number) of \(objectCount)") }
        guard depth <= maximumPlistDepth else { throw PlistError("binary plist nests more than \(maximumPlistDepth) levels") }
        budget -= 1
        guard budget >= 0 else { throw PlistError("binary plist expands to more values than its size allows (shared objects)") }
        if leafIndex[number] > 0 {
            let leaf = leafValues[Int(leafIndex[number]) - 1]
            try charge(leaf.leafByteCount)
            return leaf
        }
        let value = try read(number, depth: depth)
        try charge(value.leafByteCount)
        if value.leafByteCount > 0 {
            leafValues.append(value)
            leafIndex[number] = UInt32(leafValues.count)
        }
        return value
    }

    private mutating func read(_ number: Int, depth: Int) throws(PlistError) -> PlistValue {
        let start = try offset(ofObject: number)
        let marker = bytes[start]
        let high = marker >> 4, low = marker & 0x0F
        switch high {
        case 0x0:
            switch low {
            case 0x8: return .bool(false)
            case 0x9: return .bool(true)
            default: throw PlistError("binary plist has an unsupported null or fill object")
            }
        case 0x1:
            guard low <= 4 else { throw PlistError("binary plist integer of 2^\(low) bytes") }
            let size = 1 << Int(low)
            try need(start + 1, size)
            if size == 16 {
                // 128-bit: what CoreFoundation writes for values above Int64.max (high half 0).
                let high = readUInt(at: start + 1, size: 8), low = readUInt(at: start + 9, size: 8)
                return high == 0 ? PlistValue.integer(magnitude: low, negative: false)! : .integer(Int64(bitPattern: low))
            }
            let raw = readUInt(at: start + 1, size: size)
            return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            guard low == 2 || low == 3 else { throw PlistError("binary plist real of 2^\(low) bytes") }
            let size = 1 << Int(low)
            try need(start + 1, size)
            let raw = readUInt(at: start + 1, size: size)
            return .real(size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
        case 0x3:
            guard low == 3 else { throw PlistError("binary plist date of the wrong size") }
            try need(start + 1, 8)
            let seconds = Double(bitPattern: readUInt(at: start + 1, size: 8))
            guard PlistDate.isRepresentable(seconds) else { throw PlistError("binary plist date \(seconds) s from 2001 is outside the years 1 to 9999") }
            return .date(seconds)
        case 0x4:
            let (length, at) = try lengthAndStart(start, low)
            try need(at, length)
            return .data(Array(bytes[at..<(at + length)]))
        case 0x5:
            let (length, at) = try lengthAndStart(start, low)
            try need(at, length)
            let ascii = bytes[at..<(at + length)]
            // Nearly always ASCII already: decoded without a copy; other bytes become "?".
            if ascii.allSatisfy({ $0 < 0x80 }) { return .string(String(decoding: ascii, as: UTF8.self)) }
            return .string(String(decoding: ascii.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self))
        case 0x6:
            let (length, at) = try lengthAndStart(start, low)
            let (byteCount, overflow) = length.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw PlistError("binary plist string length overflows") }
            try need(at, byteCount)
            var units: [UInt16] = []
            units.reserveCapacity(length)
            for unit in 0..<length { units.append(UInt16(bytes[at + 2 * unit]) << 8 | UInt16(bytes[at + 2 * unit + 1])) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x7:
            let (length, at) = try lengthAndStart(start, low)
            try need(at, length)
            return .string(String(decoding: bytes[at..<(at + length)], as: UTF8.self))
        case 0x8:
            try need(start + 1, Int(low) + 1)
            return .uid(readUInt(at: start + 1, size: min(Int(low) + 1, 8)))
        case 0xA, 0xB, 0xC:
            let (length, at) = try lengthAndStart(start, low)
            let references = try readReferences(at, count: length)
            try enter(number)
            defer { inProgress[number] = false }
            var values: [PlistValue] = []
            values.reserveCapacity(length)
            for reference in references { values.append(try object(reference, depth: depth + 1)) }
            return .array(values)
        case 0xD:
            let (length, at) = try lengthAndStart(start, low)
            let (doubled, overflow) = length.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw PlistError("binary plist dictionary size overflows") }
            let references = try readReferences(at, count: doubled)
            try enter(number)
            defer { inProgress[number] = false }
            var result: [String: PlistValue] = [:]
            result.reserveCapacity(length)
            for pair in 0..<length {
                let key = try object(references[pair], depth: depth + 1)
                guard case let .string(name) = key else {
                    throw PlistError("binary plist dictionary key is a \(key.typeName), not a string")
                }
                result[name] = try object(references[length + pair], depth: depth + 1)
            }
            return .dictionary(result)
        default:
            throw PlistError("binary plist object has unknown marker 0x\(String(marker, radix: 16))")
        }
    }

    private mutating func enter(_ number: Int) throws(PlistError) {
        guard !inProgress[number] else {
            throw PlistError("binary plist has a cycle: object \(number) contains itself")
        }
        inProgress[number] = true
    }

    private func need(_ start: Int, _ length: Int) throws(PlistError) {
        guard length >= 0, start <= offsetTableStart, length <= offsetTableStart - start else {
            throw PlistError("binary plist object runs past the object area")
        }
    }

    /// The element count of a string, data or collection (inline, or in a following integer) and
    /// where its payload starts.
    private func lengthAndStart(_ start: Int, _ low: UInt8) throws(PlistError) -> (Int, Int) {
        if low != 0x0F { return (Int(low), start + 1) }
        try need(start + 1, 1)
        let marker = bytes[start + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { throw PlistError("binary plist has a malformed length") }
        let size = 1 << Int(marker & 0x0F)
        try need(start + 2, size)
        let length = readUInt(at: start + 2, size: size)
        guard length <= UInt64(bytes.count) else { throw PlistError("binary plist length \(length) exceeds the file") }
        return (Int(length), start + 2 + size)
    }

    private func readReferences(_ start: Int, count: Int) throws(PlistError) -> [Int] {
        let (byteCount, overflow) = count.multipliedReportingOverflow(by: referenceSize)
        guard !overflow else { throw PlistError("binary plist collection size overflows") }
        try need(start, byteCount)
        var references: [Int] = []
        references.reserveCapacity(count)
        for item in 0..<count {
            let value = readUInt(at: start + item * referenceSize, size: referenceSize)
            guard value < UInt64(objectCount) else { throw PlistError("binary plist refers to object \(value) of \(objectCount)") }
            references.append(Int(value))
        }
        return references
    }
}

private extension PlistValue {
    /// The bytes a string or data value holds; 0 for other values (collections are charged by
    /// their elements).
    var leafByteCount: Int {
        switch self {
        case let .string(value): value.utf8.count
        case let .data(value): value.count
        default: 0
        }
    }
}
