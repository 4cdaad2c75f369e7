public import Codecs

/// A small, seeded random-number generator (SplitMix64), so a failing fuzz case can be replayed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutates file contents the way fuzzers do: flips, inserts, deletions, duplications, splices,
/// truncations, and bytes that matter to plist syntax.
public struct Mutator: Sendable {
    public var generator: SeededGenerator
    static let interesting: [UInt8] = Array("<>{}()\";=,/*\\&#\n\0".utf8) + [0x00, 0xFF, 0x80, 0xFE, 0xEF, 0xBB, 0xBF, 0x0F, 0xD0, 0xA0]

    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// Binary headers: overwrites a few aligned 32-bit words near the start (where counts, sizes
    /// and offsets live) with values that break bounds: zero, one, the maximum, the file's size.
    public mutating func mutateWords(_ input: [UInt8], within prefix: Int = 512) -> [UInt8] {
        var bytes = input
        guard bytes.count >= 4 else { return bytes }
        let values: [UInt32] = [0, 1, 2, 8, 12, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFF8, 0x1000, UInt32(bytes.count), UInt32(bytes.count + 1)]
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let word = Int.random(in: 0..<(min(prefix, bytes.count) / 4), using: &generator) * 4
            var value = values.randomElement(using: &generator)!
            if Bool.random(using: &generator) { value = value.byteSwapped }
            for index in 0..<4 where word + index < bytes.count { bytes[word + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
        }
        return bytes
    }

    public mutating func mutate(_ input: [UInt8], spliceWith other: [UInt8] = []) -> [UInt8] {
        var bytes = input
        let rounds = Int.random(in: 1...6, using: &generator)
        for _ in 0..<rounds {
            if bytes.isEmpty { bytes = [Self.interesting.randomElement(using: &generator)!]; continue }
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<9, using: &generator) {
            case 0: bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1: bytes[position] = Self.interesting.randomElement(using: &generator)!
            case 2: bytes.insert(Self.interesting.randomElement(using: &generator)!, at: position)
            case 3: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...16, using: &generator)))
            case 4:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &generator))
            case 5: bytes.removeSubrange(position...)
            case 6:
                guard !other.isEmpty else { continue }
                let from = Int.random(in: 0..<other.count, using: &generator)
                bytes.replaceSubrange(position..., with: other[from...])
            case 7: bytes[position] = UInt8.random(in: 0...255, using: &generator)
            default:
                // Binary plists: disturb the trailer, where sizes and offsets live.
                if bytes.count > 32 {
                    let trailer = bytes.count - 32 + Int.random(in: 6..<32, using: &generator)
                    bytes[trailer] = [0, 1, 2, 0xFF, 0x7F, 8, 16].randomElement(using: &generator)!
                }
            }
        }
        return bytes
    }
}

/// Seed inputs for fuzzing: real-looking Info.plists in every format and strings files in every
/// encoding.
public enum FuzzSeeds {
    public static let info: PlistValue = .dictionary([
        "CFBundleIdentifier": .string("com.example.fuzz"), "CFBundleName": .string("Fuzz"),
        "CFBundleDisplayName": .string("Fuzz ♞"), "CFBundleVersion": .string("2.1.0b7"),
        "CFBundleShortVersionString": .string("2.1"), "CFBundlePackageType": .string("APPL"),
        "CFBundleExecutable": .string("Fuzz"), "CFBundleDevelopmentRegion": .string("English"),
        "CFBundleLocalizations": .array([.string("en"), .string("de")]), "LSHasLocalizedDisplayName": .bool(true),
        "CFBundleDocumentTypes": .array([.dictionary([
            "CFBundleTypeExtensions": .array([.string("fuzzdoc")]), "LSTypeIsPackage": .integer(1),
            "LSItemContentTypes": .array([.string("com.example.fuzzdoc")]),
        ])]),
        "UTExportedTypeDeclarations": .array([.dictionary([
            "UTTypeIdentifier": .string("com.example.fuzzdoc"), "UTTypeConformsTo": .array([.string("com.apple.package")]),
            "UTTypeTagSpecification": .dictionary(["public.filename-extension": .string("fuzzdoc")]),
        ])]),
        "Data": .data([0, 1, 2, 3, 0xFF]), "Date": .date(86400), "Ratio": .real(0.25), "Count": .integer(-7),
    ])

    public static var infoFiles: [[UInt8]] {
        [PropertyListWriter.xml(info), PropertyListWriter.binary(info), PropertyListWriter.openStep(info)]
    }

    public static var stringsFiles: [[UInt8]] {
        let entries = [("CFBundleDisplayName", "Schäch"), ("CFBundleName", "Schach"), ("NSHumanReadableCopyright", "© 2026")]
        return StringsEncoding.allCases.map { StringsEncoder.encode(entries, as: $0) }
    }
}

extension Mutator {
    /// Image headers declaring huge (or zero, or lying) sizes: one to three of the size fields
    /// `ImageHeaderFields` finds (icns lengths, JPEG 2000's SIZ and ihdr, PNG's IHDR, TIFF's
    /// dimensions, tiles and strips) set to values decoders must refuse before allocating.
    public mutating func mutateImageHeader(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        let fields = ImageHeaderFields.fields(of: bytes)
        guard !fields.isEmpty else { return mutate(input) }
        let values: [UInt32] = [0, 1, 2, 16, 2048, 4097, 8000, 16000, 0xFFFF, 0x1_0000, 1 << 20, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt32(truncatingIfNeeded: bytes.count)]
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let field = fields.randomElement(using: &generator)!
            let value = values.randomElement(using: &generator)!
            for index in 0..<field.width {
                let shift = UInt32(8 * (field.bigEndian ? field.width - 1 - index : index))
                bytes[field.offset + index] = UInt8(truncatingIfNeeded: value >> shift)
            }
        }
        ImageHeaderFields.fixPNGChecksums(&bytes)
        return bytes
    }
}
