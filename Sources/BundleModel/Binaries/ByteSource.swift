public import SystemCalls

/// Why an executable's headers could not be read: a one-line message for the bundle's errors.
public struct BinaryError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Where the header readers get bytes: a file (read with `pread`, never whole) or bytes in memory
/// (tests and fuzzing). Every read is bounded by a budget, so a lying header cannot make a reader
/// fetch more than a few megabytes however its counts and offsets are forged.
public protocol ByteSource {
    var size: UInt64 { get }
    /// Up to `count` bytes at `offset`: fewer only at the end of the file. A slice, so a source
    /// holding the bytes already (a file's first page) hands them out without copying.
    func read(at offset: UInt64, count: Int) throws -> ArraySlice<UInt8>
}

/// Bytes in memory as a source.
public struct MemoryByteSource: ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: UInt64 { UInt64(bytes.count) }
    public func read(at offset: UInt64, count: Int) throws -> ArraySlice<UInt8> {
        guard offset < size else { return [] }
        let start = Int(offset)
        return bytes[start..<min(bytes.count, start + count)]
    }
}

/// An open file as a source. The first read fetches the file's first page whole: a thin binary's
/// header and load commands usually fit in it, so most files cost one `pread`.
public final class FileByteSource: ByteSource {
    static let pageSize = 4096
    let descriptor: Descriptor
    public let size: UInt64
    private var firstPage: [UInt8]?

    public init(_ descriptor: Descriptor, size: UInt64) {
        self.descriptor = descriptor
        self.size = size
    }

    public func read(at offset: UInt64, count: Int) throws -> ArraySlice<UInt8> {
        if offset + UInt64(count) <= UInt64(Self.pageSize) {
            if firstPage == nil { firstPage = try descriptor.read(at: 0, count: Self.pageSize) }
            let page = firstPage!
            guard offset < UInt64(page.count) else { return [] }
            return page[Int(offset)..<min(page.count, Int(offset) + count)]
        }
        return try descriptor.read(at: Int64(offset), count: count)[...]
    }
}

/// Reads for a header parser: exact lengths, a budget of bytes, and errors that say what was cut.
struct BoundedReader {
    let source: any ByteSource
    private(set) var budget: Int

    init(_ source: any ByteSource, budget: Int) {
        self.source = source
        self.budget = budget
    }

    var size: UInt64 { source.size }

    /// Exactly `count` bytes at `offset`, or an error naming `what`.
    mutating func bytes(at offset: UInt64, count: Int, _ what: @autoclosure () -> String) throws -> ArraySlice<UInt8> {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw BinaryError("\(what()) (\(count) bytes at offset \(offset)) runs past the end of the file (\(size) bytes)")
        }
        guard count <= budget else { throw BinaryError("\(what()) (\(count) bytes) is more than the headers of a binary can need; not read") }
        budget -= count
        let bytes: ArraySlice<UInt8>
        do {
            bytes = try source.read(at: offset, count: count)
        } catch {
            throw BinaryError("\(what()): \(error)")
        }
        guard bytes.count == count else { throw BinaryError("\(what()) is cut short: the file shrank while it was read") }
        return bytes
    }

    /// `bytes(at:count:_:)` ready to read fields from.
    mutating func fields(at offset: UInt64, count: Int, bigEndian: Bool, _ what: @autoclosure () -> String) throws -> FieldReader {
        FieldReader(try bytes(at: offset, count: count, what()), bigEndian: bigEndian)
    }
}

/// Integers out of a header, in the file's byte order; offsets past the end are errors.
struct FieldReader {
    /// A slice of a source's bytes: offsets below count from its start, not from its indices.
    private let storage: ArraySlice<UInt8>
    let bigEndian: Bool

    init(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) {
        storage = bytes
        self.bigEndian = bigEndian
    }

    var count: Int { storage.count }

    /// The bytes of `range` (offsets from the start), which the caller has checked lie inside.
    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        storage[(storage.startIndex + range.lowerBound)..<(storage.startIndex + range.upperBound)]
    }

    func u8(_ offset: Int) throws -> UInt8 {
        guard offset >= 0, offset < count else { throw BinaryError("a field at \(offset) is past the end of its \(count)-byte structure") }
        return storage[storage.startIndex + offset]
    }

    func u16(_ offset: Int) throws -> UInt16 { UInt16(try integer(offset, 2)) }
    func u32(_ offset: Int) throws -> UInt32 { UInt32(try integer(offset, 4)) }
    func u64(_ offset: Int) throws -> UInt64 { try integer(offset, 8) }

    private func integer(_ offset: Int, _ width: Int) throws -> UInt64 {
        guard offset >= 0, width <= count, offset <= count - width else {
            throw BinaryError("a field at \(offset) is past the end of its \(count)-byte structure")
        }
        let start = storage.startIndex + offset
        var value: UInt64 = 0
        for index in 0..<width {
            let byte = UInt64(storage[start + (bigEndian ? index : width - 1 - index)])
            value = value << 8 | byte
        }
        return value
    }

    /// A NUL-terminated string starting at `offset`, at most `limit` bytes; nil when it is not
    /// terminated in time or not UTF-8.
    func cString(_ offset: Int, limit: Int) -> String? {
        guard offset >= 0, offset < count, limit >= 0 else { return nil }
        let text = bytes(offset..<(offset + min(count - offset, limit)))
        guard let nul = text.firstIndex(of: 0) else { return nil }
        return String(validating: text[..<nul], as: UTF8.self)
    }
}
