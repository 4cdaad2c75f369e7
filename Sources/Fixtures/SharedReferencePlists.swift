/// Binary plists whose objects are referenced many times over (SPEC.md, "Bad input": absurd
/// sizes): a small file that names one large object again and again expands, once read, to far more
/// than its size. Written object by object, so the shapes no writer of ours would produce exist.
public enum SharedReferencePlists {
    public indirect enum Object: Sendable {
        /// Bytes that do not compress (a zip's bomb check must not be what stops them).
        case data(count: Int, seed: UInt64)
        case string(String)
        case integer(UInt32)
        /// References by object number.
        case array([Int])
        /// Key and value references by object number.
        case dictionary([(key: Int, value: Int)])
    }

    /// A `bplist00` file of these objects, the first one the top, with reference and offset sizes
    /// as small as they can be.
    public static func binary(_ objects: [Object]) -> [UInt8] {
        let referenceSize = byteCount(for: UInt64(objects.count))
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += encode(object, referenceSize: referenceSize)
        }
        let table = out.count
        let offsetSize = byteCount(for: UInt64(table))
        for offset in offsets { out += bigEndian(UInt64(offset), size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += bigEndian(UInt64(objects.count), size: 8) + bigEndian(0, size: 8) + bigEndian(UInt64(table), size: 8)
        return out
    }

    /// An Info dictionary whose `Payload` array names one data object of `dataBytes` bytes
    /// `references` times: 1 MiB named 100,000 times is a 1.1 MB file that expands to 100 GiB.
    public static func info(identifier: String, dataBytes: Int, references: Int) -> [UInt8] {
        binary([
            .dictionary([(key: 1, value: 2), (key: 3, value: 4)]),
            .string("CFBundleIdentifier"), .string(identifier),
            .string("Payload"), .array(Array(repeating: 5, count: references)),
            .data(count: dataBytes, seed: 0x5A),
        ])
    }

    /// The shapes the fuzzers start from: one large leaf shared by a flat array, by a dictionary's
    /// values, and through two levels of arrays (references squared).
    public static var shapes: [[UInt8]] {
        [
            binary([.array(Array(repeating: 1, count: 4096)), .data(count: 64 << 10, seed: 1)]),
            binary([.dictionary((0..<512).map { (key: 2 + $0, value: 1) }), .string(String(repeating: "x", count: 32 << 10))]
                + (0..<512).map { .string("k\($0)") }),
            binary([.array(Array(repeating: 1, count: 1024)), .array(Array(repeating: 2, count: 1024)), .string("shared")]),
            info(identifier: "com.example.shared", dataBytes: 256 << 10, references: 512),
        ]
    }

    static func encode(_ object: Object, referenceSize: Int) -> [UInt8] {
        switch object {
        case let .data(count, seed):
            var generator = SeededGenerator(seed: seed)
            return marker(0x4, count) + (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        case let .string(text): return marker(0x5, text.utf8.count) + Array(text.utf8)
        case let .integer(value): return [0x12] + bigEndian(UInt64(value), size: 4)
        case let .array(references):
            return marker(0xA, references.count) + references.flatMap { bigEndian(UInt64($0), size: referenceSize) }
        case let .dictionary(pairs):
            return marker(0xD, pairs.count) + pairs.flatMap { bigEndian(UInt64($0.key), size: referenceSize) }
                + pairs.flatMap { bigEndian(UInt64($0.value), size: referenceSize) }
        }
    }

    /// A type nibble with a length: inline below 15, else a following 4-byte integer.
    static func marker(_ type: UInt8, _ length: Int) -> [UInt8] {
        length < 15 ? [type << 4 | UInt8(length)] : [type << 4 | 0x0F, 0x12] + bigEndian(UInt64(length), size: 4)
    }

    static func byteCount(for value: UInt64) -> Int { value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : 4 }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }
}

extension Mutator {
    /// Binary plists: points every reference of one collection at a single object, so one object is
    /// shared many times over (what a hostile writer does to expand a small file). Other inputs
    /// are returned as they are.
    public mutating func shareReferences(_ input: [UInt8]) -> [UInt8] {
        guard input.count > 40, input.starts(with: Array("bplist0".utf8)) else { return input }
        let trailer = input.count - 32
        let offsetSize = Int(input[trailer + 6]), referenceSize = Int(input[trailer + 7])
        let count = Int(truncatingIfNeeded: SharedReferencePlists.read(input, trailer + 8, 8))
        let table = Int(truncatingIfNeeded: SharedReferencePlists.read(input, trailer + 24, 8))
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 1, table > 8,
              table <= trailer, count <= (trailer - table) / offsetSize
        else { return input }
        var bytes = input
        let target = UInt64.random(in: 0..<UInt64(count), using: &generator)
        for _ in 0..<8 {
            let object = Int.random(in: 0..<count, using: &generator)
            let start = Int(truncatingIfNeeded: SharedReferencePlists.read(input, table + object * offsetSize, offsetSize))
            guard start >= 8, start < table, [0xA, 0xD].contains(input[start] >> 4) else { continue }
            var length = Int(input[start] & 0x0F), references = start + 1
            if length == 0x0F {
                guard start + 2 < table, input[start + 1] >> 4 == 1 else { continue }
                let size = 1 << Int(input[start + 1] & 0x0F)
                length = Int(truncatingIfNeeded: SharedReferencePlists.read(input, start + 2, min(size, 8)))
                references = start + 2 + size
            }
            if input[start] >> 4 == 0xD { length *= 2 }
            for index in 0..<length {
                let at = references + index * referenceSize
                guard at + referenceSize <= table else { break }
                // Dictionary keys stay strings: only values (the second half) are redirected.
                if input[start] >> 4 == 0xD && index < length / 2 { continue }
                bytes.replaceSubrange(at..<(at + referenceSize), with: SharedReferencePlists.bigEndian(target, size: referenceSize))
            }
            return bytes
        }
        return bytes
    }
}

extension SharedReferencePlists {
    static func read(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        guard offset >= 0, offset + size <= bytes.count else { return 0 }
        return bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
