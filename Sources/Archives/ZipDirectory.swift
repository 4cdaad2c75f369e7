#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// How many members a zip's central directory holds, read before libarchive sees the file:
/// libarchive's seekable zip reader takes the whole central directory into memory before it gives
/// the first member, so a zip of 3 million empty members reached 542 MB before the member limit
/// could apply. The end record is found and checked as libarchive's zip reader does
/// (`read_eocd`, `read_zip64_eocd` in libarchive 3.6); its count (ZIP64's when there is one)
/// refuses an honest zip at once, and because a count may lie, the entries are then counted
/// where libarchive will walk them, in pieces, no further than the limit.
enum ZipDirectory {
    static let endSignature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
    static let zip64EndSignature: [UInt8] = [0x50, 0x4B, 0x06, 0x06]
    static let zip64LocatorSignature: [UInt8] = [0x50, 0x4B, 0x06, 0x07]
    static let entrySignature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
    /// The end record (22 bytes) and the longest comment it may carry.
    static let tailSize = 22 + 0xFFFF

    /// Why the zip in `file` holds more than `limit` members, or nil when it does not (or is no
    /// zip, or is damaged: libarchive then says what is wrong).
    static func refusal(of file: Descriptor, limit: Int) -> String? {
        guard let (count, declared) = try? members(of: file, countingTo: limit), count > limit else { return nil }
        let lists = declared ? "lists \(count)" : "holds more"
        return "more than \(limit) members: the zip's central directory \(lists); not read"
    }

    /// Where the central directory is and what its end record says.
    struct End {
        var entries: UInt64
        var size: UInt64
        /// Where the record that ends the directory starts (the ZIP64 one when there is one).
        var position: Int64
    }

    /// The members the central directory lists (`declared`: as its end record says), or counts
    /// no further than `limit + 1`; nil when the file has no zip end record libarchive would take.
    static func members(of file: Descriptor, countingTo limit: Int) throws -> (count: Int, declared: Bool)? {
        let size = try file.status().size
        guard size >= 22, let end = try end(of: file, size: size) else { return nil }
        if end.entries > UInt64(limit) { return (Int(clamping: end.entries), true) }
        // libarchive starts where a directory of that size would start before its end record (data
        // may have been prepended to the zip), and searches forward to the first entry.
        var reader = PieceReader(file: file, size: end.position)
        let start = max(0, end.position - Int64(clamping: end.size))
        guard var position = try reader.firstSignature(from: start, among: [entrySignature, endSignature, zip64EndSignature]) else {
            return (0, false)
        }
        var count = 0
        while count <= limit, let head = try reader.bytes(at: position, count: 46), head.prefix(4).elementsEqual(entrySignature) {
            count += 1
            position += 46 + Int64(le(head, 28, 2) + le(head, 30, 2) + le(head, 32, 2))
        }
        return (count, false)
    }

    /// The last end record in the file's last 64 KiB that libarchive's checks accept: disk 0 of
    /// one, all entries on it, the directory before the record; then the ZIP64 record its locator
    /// points to, under the same checks.
    static func end(of file: Descriptor, size: Int64) throws -> End? {
        let tailStart = max(0, size - Int64(tailSize))
        let tail = try file.read(at: tailStart, count: Int(size - tailStart))
        for at in stride(from: tail.count - 22, through: 0, by: -1) where tail[at..<at + 4].elementsEqual(endSignature) {
            let position = tailStart + Int64(at)
            guard le(tail, at + 4, 2) == 0, le(tail, at + 6, 2) == 0, le(tail, at + 8, 2) == le(tail, at + 10, 2),
                  le(tail, at + 16, 4) + le(tail, at + 12, 4) <= UInt64(position) else { continue }
            var end = End(entries: le(tail, at + 10, 2), size: le(tail, at + 12, 4), position: position)
            if at >= 20, tail[(at - 20)..<(at - 16)].elementsEqual(zip64LocatorSignature) {
                let recordPosition = Int64(clamping: le(tail, at - 20 + 8, 8))
                let record = try file.read(at: recordPosition, count: 56)
                let (reach, overflow) = le(record, 48, 8).addingReportingOverflow(le(record, 40, 8))
                if record.count == 56, record.prefix(4).elementsEqual(zip64EndSignature), le(record, 24, 8) == le(record, 32, 8),
                   !overflow, reach <= UInt64(recordPosition) {
                    end = End(entries: le(record, 32, 8), size: le(record, 40, 8), position: recordPosition)
                }
            }
            return end
        }
        return nil
    }

    /// A little-endian unsigned field.
    static func le(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int, _ width: Int) -> UInt64 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return bytes[start..<bytes.index(start, offsetBy: width)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Reads a file forward in 64 KiB pieces, up to `size`, so a walk over millions of small records
/// costs a read per piece rather than per record, and never more memory than a piece.
private struct PieceReader {
    static let pieceSize = 64 * 1024
    let file: Descriptor
    let size: Int64
    private var piece: [UInt8] = []
    private var pieceStart: Int64 = 0

    init(file: Descriptor, size: Int64) {
        self.file = file
        self.size = size
    }

    /// `count` bytes at `offset`, or nil past `size`.
    mutating func bytes(at offset: Int64, count: Int) throws -> ArraySlice<UInt8>? {
        guard offset >= 0, offset + Int64(count) <= size else { return nil }
        if offset < pieceStart || offset + Int64(count) > pieceStart + Int64(piece.count) {
            pieceStart = offset
            piece = try file.read(at: offset, count: Int(min(Int64(max(count, Self.pieceSize)), size - offset)))
            guard piece.count >= count else { return nil }
        }
        let start = Int(offset - pieceStart)
        return piece[start..<(start + count)]
    }

    /// Where the first of `signatures` (four bytes each, all starting `PK`) starts at or after
    /// `offset`, found with memchr a piece at a time.
    mutating func firstSignature(from offset: Int64, among signatures: [[UInt8]]) throws -> Int64? {
        var position = offset
        while position + 4 <= size {
            guard let window = try bytes(at: position, count: min(Self.pieceSize, Int(size - position))), window.count >= 4 else { return nil }
            let found: Int? = window.withUnsafeBytes { raw in
                var at = 0
                while at + 4 <= raw.count, let hit = memchr(raw.baseAddress! + at, 0x50, raw.count - 3 - at) {
                    let index = raw.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    if signatures.contains(where: { $0.elementsEqual(raw[index..<index + 4]) }) { return index }
                    at = index + 1
                }
                return nil
            }
            if let found { return position + Int64(found) }
            position += Int64(window.count - 3)
        }
        return nil
    }
}
