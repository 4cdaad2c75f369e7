import Codecs
import Fixtures
import Testing

/// Codecs' one LEB128 reader, which both claim formats read with: what the writer writes reads
/// back, and damaged bytes say how they are damaged without moving the reader.
@Suite struct LEB128Tests {
    static func read(_ bytes: [UInt8], at start: Int = 0) -> (Result<UInt64, LEB128.ReadError>, offset: Int) {
        var offset = start
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(LEB128.ReadError) in try LEB128.read(buffer, at: &offset) } }
        return (result, offset)
    }

    @Test func whatIsWrittenReadsBack() throws {
        var generator = SeededGenerator(seed: 128)
        let values: [UInt64] = [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, UInt64(Int64.max)]
            + (0..<500).map { _ in UInt64.random(in: 0...UInt64(Int64.max), using: &generator) >> UInt64.random(in: 0..<63, using: &generator) }
        var bytes: [UInt8] = [0xAA] // something before the first value
        for value in values { LEB128.append(value, to: &bytes) }
        var offset = 1
        for value in values {
            let read = try bytes.withUnsafeBytes { try LEB128.read($0, at: &offset) }
            #expect(read == value)
        }
        #expect(offset == bytes.count)
        #expect(Self.read([0x80, 0x01]).0 == .success(128))
        #expect(Self.read([0x05, 0x80, 0x01], at: 1).1 == 3)
    }

    @Test func damagedBytesAreToldAndLeaveTheOffset() {
        // Empty, and ending inside a value.
        #expect(Self.read([]).0 == .failure(.truncated))
        #expect(Self.read([0x01, 0x80, 0x80], at: 1) == (.failure(.truncated), 1))
        // Nine bytes are the most a value takes (63 bits); a tenth is damage, not a larger value.
        let nine: [UInt8] = Array(repeating: 0xFF, count: 8) + [0x7F]
        #expect(Self.read(nine).0 == .success(UInt64(Int64.max)))
        #expect(Self.read(Array(repeating: 0xFF, count: 9) + [0x01]) == (.failure(.overlong), 0))
        #expect(Self.read(Array(repeating: 0x80, count: 40)) == (.failure(.overlong), 0))
        // Nine continuation bytes at the very end: the bytes end first.
        #expect(Self.read(Array(repeating: 0x80, count: 9)).0 == .failure(.truncated))
    }
}
